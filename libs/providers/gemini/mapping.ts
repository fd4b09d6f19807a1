import { invalid, unsupported as unsupportedBy, upstreamError } from '../src/translation-errors.js';
import { type ChatFinishReason, type ChatToolCall } from '../src/chat.js';

/** Small mappings shared by this folder's translators: errors, finish reasons, call ids, parts. */

export type Json = Record<string, unknown>;

export const TARGET = 'a Gemini provider';

export { invalid, upstreamError };

/** A cross-format 400: the field is valid, but the target (Gemini, by default) cannot express it. */
export const unsupported = (param: string, target = TARGET) => unsupportedBy(param, target);

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gemini finish reason -> hub finish reason. Gemini says STOP for a turn that ends in function
 * calls too: the hub's `tool_calls` is inferred from the candidate's parts. The tool-call
 * failures (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS), OTHER and reasons
 * Google adds later become `stop`: the turn ended without a usable call, without being cut by a
 * token cap and without a filter, and `stop` is the one hub reason that promises none of those.
 */
export function finishReasonOf(reason: unknown, hasCalls: boolean): ChatFinishReason | null {
  if (reason === undefined || reason === null || reason === '') return null;
  switch (reason) {
    case 'STOP':
      return hasCalls ? 'tool_calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
    case 'LANGUAGE':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * Thought signatures ride inside hub tool call ids, since OpenAI-format clients echo nothing of a
 * call but its id. Encoding: `<call id>__thought__<signature>`, the signature as Google sent it
 * (standard base64: `A-Z a-z 0-9 + / =`). No `_` can occur in standard base64, so the last
 * `__thought__` of an id is always the separator, whatever the call id holds: decoding splits
 * there, and only when what follows is padded base64 (a length that is a multiple of 4, as Google
 * renders bytes); any other id is a plain call id. A call without a
 * signature keeps its bare id. (The separator is the one LiteLLM uses for the same purpose.)
 */
export const THOUGHT_SEPARATOR = '__thought__';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function encodeCallId(id: string, signature: string | undefined): string {
  return signature ? `${id}${THOUGHT_SEPARATOR}${signature}` : id;
}

export function decodeCallId(encoded: string): { readonly id: string; readonly signature?: string } {
  const at = encoded.lastIndexOf(THOUGHT_SEPARATOR);
  if (at < 0) return { id: encoded };
  const signature = encoded.slice(at + THOUGHT_SEPARATOR.length);
  if (signature.length % 4 !== 0 || !BASE64.test(signature)) return { id: encoded };
  return { id: encoded.slice(0, at), signature };
}

/** What one part of a candidate's content is for the hub. */
export type Piece =
  | { readonly kind: 'text' | 'reasoning'; readonly text: string }
  | { readonly kind: 'call'; readonly call: ChatToolCall };

/** Part kinds the hub has no field for; the hub never asks for what produces them. */
const UNMAPPED = ['inlineData', 'fileData', 'executableCode', 'codeExecutionResult', 'functionResponse'];

/**
 * One response part -> its hub piece, or null for a part with no content (a signature alone, an
 * empty text). `ordinal` numbers the candidate's calls: Gemini may leave `functionCall.id` out,
 * and the hub needs an id the next turn can answer (`call_<ordinal>`, stable for one answer).
 * Signatures on text parts are left: Google enforces them on function calls only.
 */
export function pieceOf(part: unknown, ordinal: number): Piece | null {
  if (!isObject(part)) throw upstreamError('Gemini returned a content part that is not an object.');
  if (isObject(part.functionCall)) {
    const fc = part.functionCall;
    if (typeof fc.name !== 'string') throw upstreamError('Gemini returned a function call without a name.');
    const id = typeof fc.id === 'string' && fc.id !== '' ? fc.id : `call_${ordinal}`;
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    const call: ChatToolCall = {
      id: encodeCallId(id, signature),
      type: 'function',
      function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) },
    };
    return { kind: 'call', call };
  }
  if (typeof part.text === 'string') {
    if (part.text === '') return null;
    return { kind: part.thought === true ? 'reasoning' : 'text', text: part.text };
  }
  const kind = UNMAPPED.find((k) => part[k] !== undefined);
  if (kind) throw upstreamError(`Gemini returned a ${kind} part, which has no chat equivalent.`);
  return null;
}

/** The candidates of a response with their index; without one (an answer not from Google), their position. */
export function candidatesOf(body: Json): { readonly index: number; readonly candidate: Json }[] {
  if (body.candidates === undefined) return [];
  if (!Array.isArray(body.candidates)) throw upstreamError('Gemini returned candidates that are not a list.');
  return (body.candidates as unknown[]).map((raw, position) => {
    if (!isObject(raw)) throw upstreamError('Gemini returned a candidate that is not an object.');
    return { index: typeof raw.index === 'number' ? raw.index : position, candidate: raw };
  });
}

/** A candidate's parts (none for a candidate stopped before any content). */
export function partsOf(candidate: Json): readonly unknown[] {
  const content = candidate.content;
  return isObject(content) && Array.isArray(content.parts) ? content.parts : [];
}

/**
 * Google sends a `responseId` with every answer; without one the id is derived from the answer's
 * text (FNV-1a), so the translation stays pure and the id still differs between answers.
 */
export function responseIdOf(body: Json, text: string): string {
  if (typeof body.responseId === 'string' && body.responseId !== '') return body.responseId;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `gemini-${(hash >>> 0).toString(16).padStart(8, '0')}`;
}
