import { type HeaderMap } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';
import { upstreamError } from '../openai/fields.js';

/** Calls of one request in flight at once: Bedrock's quotas count InvokeModel calls per minute. */
export const BEDROCK_EMBEDDING_CONCURRENCY = 8;

/** Bedrock's own count of a call's input tokens, in its answer's headers (Cohere's body has none). */
export function inputTokensHeader(headers: HeaderMap): number | null {
  const raw = headers['x-amzn-bedrock-input-token-count'];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isInteger(value) && value >= 0 ? value : null;
}

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A vector of an answer: a non-empty array of numbers, or the answer is not the model's. */
export function vectorOf(value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'number'))
    throw upstreamError('Bedrock returned an embedding that is not a list of numbers.');
  return value as number[];
}
