import { GatewayError } from '#libs/protocol';

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

/** A 400 naming the field, rendered by the edge in the client's error shape. */
export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** A cross-format 400: the field is valid, but Converse cannot express it. */
export function unsupported(param: string): GatewayError {
  return invalid(param, `${param} is not supported when this model is served by a Bedrock provider.`);
}

export function upstreamError(message: string): GatewayError {
  return new GatewayError('upstream_error', message);
}
