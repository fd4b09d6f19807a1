import { type GatewayError } from '#libs/protocol';
import { invalid, type Json, unsupported as unsupportedBy } from './mapping.js';

/**
 * Reading a Gemini client's body. Google parses request JSON the protobuf way: every field may be
 * spelled in lowerCamelCase or in its proto (snake_case) name, and Google's own REST examples use
 * both (`system_instruction`, `inline_data`); enum values are read whatever their case (`"low"`).
 * Names inside user data (function arguments, schema properties) are never rewritten.
 */

export { invalid, isObject, type Json, upstreamError } from './mapping.js';

/** Where translated requests go, for refusal messages. */
export const TARGET = 'a provider of another format';

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

/** A cross-format 400: the field is valid for Google, but the target format cannot express it. */
export const unsupported = (param: string, target = TARGET): GatewayError => unsupportedBy(param, target);

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
