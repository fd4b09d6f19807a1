/**
 * Google's JSON -> proto parsing of a request body, as its API front end does it before the model
 * sees anything: field names are taken in either JSON (camelCase) or proto (snake_case) spelling,
 * unknown names and ill-typed values are all reported at once (one line each, paths in snake_case
 * with map entries as `properties[i].value`), a second member of a oneof is refused, and enums
 * match case-insensitively or by number. The result is the body with camelCase names only.
 */
import type { JsonObject } from './types.js';

export type FieldType =
  | { readonly kind: 'string' | 'bool' | 'bytes' | 'struct' | 'value' | 'duration' }
  | { readonly kind: 'int32' | 'int64' | 'float' | 'double' }
  | { readonly kind: 'enum'; readonly name: string; readonly values: readonly string[] }
  | { readonly kind: 'message'; readonly message: () => MessageType }
  | { readonly kind: 'map'; readonly message: () => MessageType };

export interface Field {
  readonly type: FieldType;
  readonly repeated?: boolean;
  /** The oneof group the field belongs to (at most one member may be set). */
  readonly oneof?: string;
}

export interface MessageType {
  /** The type URL Google prints in `Invalid value` messages. */
  readonly name: string;
  /** Keyed by the JSON (camelCase) name. */
  readonly fields: Readonly<Record<string, Field>>;
}

export interface Violation {
  readonly field?: string;
  readonly description: string;
}

const SCALAR_NAMES: Readonly<Record<string, string>> = {
  string: 'TYPE_STRING',
  bool: 'TYPE_BOOL',
  bytes: 'TYPE_BYTES',
  int32: 'TYPE_INT32',
  int64: 'TYPE_INT64',
  float: 'TYPE_FLOAT',
  double: 'TYPE_DOUBLE',
  duration: 'type.googleapis.com/google.protobuf.Duration',
  struct: 'type.googleapis.com/google.protobuf.Struct',
};
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const DURATION = /^-?\d+(\.\d{1,9})?s$/;
const INTEGER = /^-?\d+$/;

export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const lookups = new WeakMap<MessageType, Map<string, string>>();

/** Proto JSON takes both spellings of a name. */
function jsonNameOf(type: MessageType, key: string): string | undefined {
  let names = lookups.get(type);
  if (!names) {
    names = new Map();
    for (const name in type.fields) names.set(name, name).set(snakeCase(name), name);
    lookups.set(type, names);
  }
  return names.get(key);
}

/** Parses `json` as `type`; `path` is where it sits in the request (`''` at the root). */
export function parseMessage(
  json: JsonObject,
  type: MessageType,
  path: string,
  out: Violation[],
): JsonObject {
  const parsed: JsonObject = {};
  const oneofs = new Map<string, string>();
  const at = path === '' ? '' : ` at '${path}'`;
  for (const key in json) {
    const name = jsonNameOf(type, key);
    const field = name === undefined ? undefined : type.fields[name];
    if (name === undefined || field === undefined) {
      out.push(nameViolation(key, path, at, 'Cannot find field.'));
      continue;
    }
    const value = json[key];
    if (value === null && field.type.kind !== 'value') continue; // null is "unset" in proto JSON
    if (field.oneof) {
      const set = oneofs.get(field.oneof);
      if (set !== undefined) {
        out.push({
          field: path,
          description: `Invalid value at '${path}' (oneof), oneof field '${field.oneof}' is already set. Cannot set '${key}'`,
        });
        continue;
      }
      oneofs.set(field.oneof, key);
    }
    const fieldPath = path === '' ? snakeCase(name) : `${path}.${snakeCase(name)}`;
    if (Array.isArray(value) && !field.repeated && field.type.kind !== 'value') {
      out.push(nameViolation(key, path, at, 'Proto field is not repeating, cannot start list.'));
      continue;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) {
        out.push(invalidValue(fieldPath, field.type, value));
        continue;
      }
      parsed[name] = value.map((item, i) => parseValue(item, field.type, `${fieldPath}[${i}]`, out));
    } else {
      if (isObject(value) && isScalar(field.type)) {
        out.push(nameViolation(key, path, at, 'Starting an object on a scalar field'));
        continue;
      }
      parsed[name] = parseValue(value, field.type, fieldPath, out);
    }
  }
  return parsed;
}

function parseValue(value: unknown, type: FieldType, path: string, out: Violation[]): unknown {
  const bad = (): unknown => {
    out.push(invalidValue(path, type, value));
    return undefined;
  };
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : bad();
    case 'bool':
      return typeof value === 'boolean' ? value : bad();
    case 'bytes':
      return typeof value === 'string' && BASE64.test(value) ? value : bad();
    case 'duration':
      return typeof value === 'string' && DURATION.test(value) ? value : bad();
    case 'int32':
    case 'int64': {
      const n = typeof value === 'string' && INTEGER.test(value) ? Number(value) : value;
      return typeof n === 'number' && Number.isInteger(n) ? n : bad();
    }
    case 'float':
    case 'double': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      return typeof n === 'number' && Number.isFinite(n) ? n : bad();
    }
    case 'enum':
      return enumValue(value, type.values) ?? bad();
    case 'struct':
      return isObject(value) ? value : bad();
    case 'value':
      return value;
    case 'message':
      return isObject(value) ? parseMessage(value, type.message(), path, out) : bad();
    case 'map':
      return isObject(value) ? parseMap(value, type.message(), path, out) : bad();
  }
}

function parseMap(value: JsonObject, type: MessageType, path: string, out: Violation[]): JsonObject {
  const parsed: JsonObject = {};
  Object.keys(value).forEach((key, i) => {
    const entry = value[key];
    const at = `${path}[${i}].value`;
    if (isObject(entry)) parsed[key] = parseMessage(entry, type, at, out);
    else out.push({ field: at, description: `Invalid value at '${at}' (${type.name}), ${show(entry)}` });
  });
  return parsed;
}

function enumValue(value: unknown, values: readonly string[]): string | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? values[value] : undefined;
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return values.find((v) => v === upper);
}

function nameViolation(key: string, path: string, at: string, problem: string): Violation {
  const description = `Invalid JSON payload received. Unknown name "${key}"${at}: ${problem}`;
  return path === '' ? { description } : { field: path, description };
}

function invalidValue(path: string, type: FieldType, value: unknown): Violation {
  const name =
    type.kind === 'enum'
      ? type.name
      : type.kind === 'message' || type.kind === 'map'
        ? type.message().name
        : (SCALAR_NAMES[type.kind] ?? type.kind);
  return { field: path, description: `Invalid value at '${path}' (${name}), ${show(value)}` };
}

const isScalar = (type: FieldType): boolean =>
  type.kind !== 'message' && type.kind !== 'map' && type.kind !== 'struct' && type.kind !== 'value';

function show(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
