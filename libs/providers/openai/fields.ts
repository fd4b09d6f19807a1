import { GatewayError } from '#libs/protocol';
import { type JsonObject } from '../src/types.js';

/**
 * Small readers for client bodies: each returns the field narrowed to its type or throws a 400
 * naming the parameter, so every translator reports bad input the same way.
 */

export const invalid = (param: string, message: string): GatewayError =>
  new GatewayError('invalid_request', message, { param });

/** A field the client set that the provider serving this model cannot express. */
export const notTranslatable = (
  param: string,
  why = 'the provider serving this model cannot express it',
): GatewayError => invalid(param, `'${param}' is not supported for this model: ${why}.`);

export const upstreamError = (message: string): GatewayError => new GatewayError('upstream_error', message);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optString(body: JsonObject, key: string, param = key): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(param, `'${param}' must be a string.`);
  return v;
}

export function reqString(body: JsonObject, key: string, param = key): string {
  const v = optString(body, key, param);
  if (v === undefined) throw invalid(param, `Missing required parameter: '${param}'.`);
  return v;
}

export function optNumber(body: JsonObject, key: string, param = key): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(param, `'${param}' must be a number.`);
  return v;
}

export function optInteger(body: JsonObject, key: string, param = key): number | undefined {
  const v = optNumber(body, key, param);
  if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
    throw invalid(param, `'${param}' must be a non-negative integer.`);
  }
  return v;
}

export function optBoolean(body: JsonObject, key: string, param = key): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalid(param, `'${param}' must be a boolean.`);
  return v;
}

export function optObject(body: JsonObject, key: string, param = key): JsonObject | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid(param, `'${param}' must be an object.`);
  return v;
}

export function optArray(body: JsonObject, key: string, param = key): readonly unknown[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalid(param, `'${param}' must be an array.`);
  return v;
}

/** `stop`: a string or an array of strings. */
export function optStop(body: JsonObject, key = 'stop'): string | readonly string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  throw invalid(key, `'${key}' must be a string or an array of strings.`);
}

/** Copies the keys whose value is not undefined (hub objects never carry `undefined` members). */
export function defined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}
