import { type GatewayError } from '#libs/protocol';
import { camelCase, invalid, isObject, type Json, read, unknownKeyIn } from './client-fields.js';

/**
 * A `generateContent` body checked the way Google checks it before generating: the fields its
 * request message has, `contents` a non-empty list of user / model turns with parts, and every
 * part with exactly one data field. Messages follow Google's (`* GenerateContentRequest.<field>:`).
 * What a part means is left to the translation; this only says whether Google would take it.
 */

/** GenerateContentRequest's fields (v1beta), plus those the @google/genai SDK adds from its config. */
export const REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'safetySettings',
  'generationConfig',
  'cachedContent',
  'labels',
  'serviceTier',
  'store',
  'continuationToken',
]);

/** A part's data (`oneof data`): exactly one per part. */
export const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
] as const;

const PART_FIELDS: ReadonlySet<string> = new Set([
  ...DATA_FIELDS,
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
]);

const CONTENT_FIELDS: ReadonlySet<string> = new Set(['role', 'parts']);

const fieldError = (at: string, message: string): GatewayError =>
  invalid(at, `* GenerateContentRequest.${at}: ${message}`);

/** What Google would refuse in a generateContent body, or null. */
export function generateContentInvalid(body: Json): GatewayError | null {
  return unknownKeyIn(body, REQUEST_FIELDS) ?? contentsInvalid(read(body, 'contents')) ?? systemInvalid(body);
}

export function contentsInvalid(contents: unknown): GatewayError | null {
  if (contents === undefined || contents === null) return fieldError('contents', 'contents is not specified');
  if (!Array.isArray(contents)) return invalid('contents', "Invalid value at 'contents': expected a list.");
  if (contents.length === 0) return fieldError('contents', 'contents is not specified');
  for (const [i, content] of contents.entries()) {
    const problem = contentInvalid(content, `contents[${i}]`, true);
    if (problem) return problem;
  }
  return null;
}

function systemInvalid(body: Json): GatewayError | null {
  const system = read(body, 'systemInstruction');
  if (system === undefined || system === null) return null;
  return contentInvalid(system, 'systemInstruction', false);
}

function contentInvalid(content: unknown, at: string, turn: boolean): GatewayError | null {
  if (!isObject(content)) return invalid(at, `Invalid value at '${at}': expected a Content object.`);
  const unknown = unknownKeyIn(content, CONTENT_FIELDS, at);
  if (unknown) return unknown;
  const role = content.role;
  if (turn && role !== undefined && role !== 'user' && role !== 'model') {
    return invalid(`${at}.role`, 'Please use a valid role: user, model.');
  }
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length === 0) {
    return fieldError(`${at}.parts`, 'contents.parts must not be empty.');
  }
  for (const [j, part] of parts.entries()) {
    const problem = partInvalid(part, `${at}.parts[${j}]`);
    if (problem) return problem;
  }
  return null;
}

function partInvalid(part: unknown, at: string): GatewayError | null {
  if (!isObject(part)) return invalid(at, `Invalid value at '${at}': expected a Part object.`);
  const unknown = unknownKeyIn(part, PART_FIELDS, at);
  if (unknown) return unknown;
  if (part.thought !== undefined && typeof part.thought !== 'boolean')
    return invalid(`${at}.thought`, `Invalid value at '${at}.thought': expected a boolean.`);
  const data = Object.keys(part).filter(
    (k) => part[k] !== undefined && (DATA_FIELDS as readonly string[]).includes(camelCase(k)),
  );
  if (data.length === 0) {
    return fieldError(`${at}.data`, "required oneof field 'data' must have one initialized field");
  }
  if (data.length > 1) {
    return invalid(
      `${at}.${data[1]!}`,
      `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${data[1]!}'.`,
    );
  }
  return dataInvalid(camelCase(data[0]!), read(part, camelCase(data[0]!)), `${at}.${camelCase(data[0]!)}`);
}

/** The shapes the translation reads; Google checks the same fields. */
function dataInvalid(kind: string, value: unknown, at: string): GatewayError | null {
  if (kind === 'text')
    return typeof value === 'string' ? null : invalid(at, `Invalid value at '${at}': expected a string.`);
  if (!isObject(value)) return invalid(at, `Invalid value at '${at}': expected an object.`);
  const need = (name: string, type: 'string' | 'object'): GatewayError | null => {
    const field = read(value, name);
    const ok = type === 'string' ? typeof field === 'string' : isObject(field);
    return ok
      ? null
      : fieldError(`${at}.${name}`, `${name} is required (${type === 'string' ? 'a string' : 'an object'}).`);
  };
  switch (kind) {
    case 'inlineData':
      return need('mimeType', 'string') ?? need('data', 'string');
    case 'fileData':
      return need('fileUri', 'string');
    case 'functionCall':
      return need('name', 'string') ?? optionalObject(value, 'args', at);
    case 'functionResponse':
      return need('name', 'string') ?? need('response', 'object');
    default:
      return null;
  }
}

function optionalObject(obj: Json, name: string, at: string): GatewayError | null {
  const field = read(obj, name);
  if (field === undefined || field === null || isObject(field)) return null;
  return invalid(`${at}.${name}`, `Invalid value at '${at}.${name}': expected a JSON object.`);
}
