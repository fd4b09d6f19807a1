import { GatewayError } from '#libs/protocol';

/**
 * Reading a Gemini client's body. Google parses request JSON the protobuf way: every field may be
 * spelled in lowerCamelCase or in its proto (snake_case) name, and Google's own REST examples use
 * both (`system_instruction`, `inline_data`); enum values are read whatever their case (`"low"`).
 * Names inside user data (function arguments, schema properties) are never rewritten.
 */

export type Json = Record<string, unknown>;

/** Where translated requests go, for refusal messages. */
export const TARGET = 'a provider of another format';

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const camelCase = (name: string): string =>
  name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A field by its JSON name, or by its proto name when the client spelled it that way. */
export function read(obj: Json, name: string): unknown {
  return obj[name] !== undefined ? obj[name] : obj[snakeCase(name)];
}

/** An enum value in Google's upper case, or undefined when absent. */
export function enumOf(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw invalid(param, `Invalid value at '${protoPath(param)}': expected an enum name.`);
  return value.toUpperCase();
}

/** A 400 naming the field, rendered by the edge in Google's error shape. */
export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** A cross-format 400: the field is valid for Google, but the target format cannot express it. */
export function unsupported(param: string, target = TARGET): GatewayError {
  return invalid(param, `${param} is not supported when this model is served by ${target}.`);
}

export function upstreamError(message: string): GatewayError {
  return new GatewayError('upstream_error', message);
}

/** `generationConfig.thinkingConfig` -> `generation_config.thinking_config`, as Google's messages name fields. */
export const protoPath = (param: string): string => param.split('.').map(snakeCase).join('.');

/** Google's answer to a field its request message does not have. */
export function unknownField(key: string, at?: string): GatewayError {
  const where = at === undefined ? '' : ` at '${protoPath(at)}'`;
  return invalid(
    at === undefined ? key : `${at}.${key}`,
    `Invalid JSON payload received. Unknown name "${key}"${where}: Cannot find field.`,
  );
}

/**
 * The first key of `obj` (in either spelling) that `known` lacks, as Google's unknown-name error;
 * null when every key is known.
 */
export function unknownKeyIn(obj: Json, known: ReadonlySet<string>, at?: string): GatewayError | null {
  for (const key of Object.keys(obj)) if (!known.has(camelCase(key))) return unknownField(key, at);
  return null;
}

/** The keys of `obj` in their JSON (camelCase) spelling whose value is set. */
export const setKeys = (obj: Json): string[] =>
  Object.keys(obj)
    .filter((k) => obj[k] !== undefined && obj[k] !== null)
    .map(camelCase);

/** A number field, or undefined; anything else is Google's type error. */
export function numberAt(obj: Json, name: string, at: string, integer = false): number | undefined {
  const value = read(obj, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    throw invalid(`${at}.${name}`, `Invalid value at '${protoPath(`${at}.${name}`)}': expected ${kind}.`);
  }
  return value;
}
