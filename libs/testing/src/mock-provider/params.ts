import { anthropicError, openAIError } from './errors.js';
import type { JsonObject, JsonReply } from './types.js';

/** A validation outcome: the vendor's 400 reply, or null when the field is fine. */
export type Check = JsonReply | null;

/** OpenAI's check of an optional integer field, with its messages and codes. */
export function openAIInt(body: JsonObject, key: string, min: number, max = Number.MAX_SAFE_INTEGER): Check {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return openAIError(
      400,
      `Invalid type for '${key}': expected an integer, but got ${jsonType(value)} instead.`,
      'invalid_request_error',
      { param: key, code: 'invalid_type' },
    );
  }
  if (value < min) {
    return openAIError(
      400,
      `Invalid '${key}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
      'invalid_request_error',
      { param: key, code: 'integer_below_min_value' },
    );
  }
  if (value > max) {
    return openAIError(
      400,
      `Invalid '${key}': integer above maximum value. Expected a value <= ${max}, but got ${value} instead.`,
      'invalid_request_error',
      { param: key, code: 'integer_above_max_value' },
    );
  }
  return null;
}

export function openAIMissing(key: string): JsonReply {
  return openAIError(400, `Missing required parameter: '${key}'.`, 'invalid_request_error', {
    param: key,
    code: 'missing_required_parameter',
  });
}

/** The model check shared by every OpenAI endpoint (the API's wording, not a zod message). */
export function openAIModel(body: JsonObject): Check {
  return typeof body.model === 'string' && body.model !== ''
    ? null
    : openAIError(400, 'you must provide a model parameter', 'invalid_request_error');
}

/**
 * Unknown body fields, rejected as the vendors do, so a translator leaking another vendor's
 * fields (top_k into OpenAI, stream_options into Anthropic) fails in tests as it would in production.
 */
export function unknownField(body: JsonObject, allowed: ReadonlySet<string>): string | null {
  for (const key in body) if (!allowed.has(key)) return key;
  return null;
}

export function openAIUnrecognized(key: string): JsonReply {
  return openAIError(400, `Unrecognized request argument supplied: ${key}`, 'invalid_request_error');
}

export function anthropicInvalid(message: string): JsonReply {
  return anthropicError(400, 'invalid_request_error', message);
}

/** `stop` / `stop_sequences`: a string or a list of strings. */
export function stopList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string');
  return undefined;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
