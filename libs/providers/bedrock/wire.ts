import { invalid, unsupported as unsupportedBy, upstreamError } from '../src/translation-errors.js';

export { invalid, upstreamError };

/** A cross-format 400: the field is valid, but Converse cannot express it. */
export const unsupported = (param: string) => unsupportedBy(param, 'a Bedrock provider');

/**
 * The Bedrock Runtime wire shapes this folder reads and writes: the Converse API's messages,
 * content blocks, tool configuration and usage (a subset of `@aws-sdk/client-bedrock-runtime`'s
 * models, kept local so the adapter has no SDK dependency). InvokeModel's Anthropic body is the
 * Messages body, read by the anthropic folder.
 */

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ConverseImageBlock {
  readonly format: ConverseImageFormat;
  /** The image's bytes, base64 in JSON. */
  readonly source: { readonly bytes: string };
}

export interface ConverseToolUse {
  readonly toolUseId: string;
  readonly name: string;
  readonly input: unknown;
}

export type ConverseToolResultContent =
  { readonly text: string } | { readonly json: unknown } | { readonly image: ConverseImageBlock };

export interface ConverseToolResult {
  readonly toolUseId: string;
  readonly content: readonly ConverseToolResultContent[];
  readonly status?: 'success' | 'error';
}

export type ConverseReasoning =
  | { readonly reasoningText: { readonly text: string; readonly signature?: string } }
  | { readonly redactedContent: string };

/** A content block: a union keyed by its one member, as Bedrock's JSON protocol writes unions. */
export type ConverseBlock =
  | { readonly text: string }
  | { readonly image: ConverseImageBlock }
  | { readonly toolUse: ConverseToolUse }
  | { readonly toolResult: ConverseToolResult }
  | { readonly reasoningContent: ConverseReasoning }
  | { readonly cachePoint: { readonly type: 'default' } };

export interface ConverseMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly ConverseBlock[];
}

/** Converse's `usage`: the input count excludes the cache's reads and writes (disjoint parts). */
export interface ConverseUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

export type ConverseStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'model_context_window_exceeded';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
