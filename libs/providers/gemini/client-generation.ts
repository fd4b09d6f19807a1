import { type Adjustments } from '../src/adjustments.js';
import { type ChatRequest } from '../src/chat.js';
import {
  enumOf,
  invalid,
  isObject,
  type Json,
  numberAt,
  read,
  unknownKeyIn,
  unsupported,
} from './client-fields.js';
import { jsonSchemaOf, withJsonSchemaTypes } from './client-schema.js';
import { thinkingOf } from './client-thinking.js';

/**
 * `generationConfig` -> the hub's sampling, length, format and thinking fields. Sampling and
 * length map one to one; `topK` is dropped (recorded; refused when strict): OpenAI-format
 * providers have no top-k, and Gemini CLI sends `topK: 64` with every chat turn, so refusing it
 * would refuse Gemini CLI. Output that is not text (audio, images, log-probabilities) is refused.
 */

const AT = 'generationConfig';

const CARRIED = new Map<string, { hub: string; integer: boolean }>([
  ['temperature', { hub: 'temperature', integer: false }],
  ['topP', { hub: 'top_p', integer: false }],
  ['maxOutputTokens', { hub: 'max_tokens', integer: true }],
  ['seed', { hub: 'seed', integer: true }],
  ['presencePenalty', { hub: 'presence_penalty', integer: false }],
  ['frequencyPenalty', { hub: 'frequency_penalty', integer: false }],
]);

/** They tune how Google samples or reads media: hints, dropped (refused when strict). */
const HINTS = new Set(['topK', 'mediaResolution', 'enableEnhancedCivicAnswers']);

/** Output another provider cannot give through the hub (speech, images, log-probabilities, Vertex routing). */
const REFUSED = new Set([
  'responseLogprobs',
  'logprobs',
  'speechConfig',
  'imageConfig',
  'audioTimestamp',
  'enableAffectiveDialog',
  'routingConfig',
  'modelSelectionConfig',
]);

const MAPPED = new Set([
  'stopSequences',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
]);

const FIELDS: ReadonlySet<string> = new Set([...CARRIED.keys(), ...HINTS, ...REFUSED, ...MAPPED]);

export function generationOf(raw: unknown, adjust: Adjustments): Partial<ChatRequest> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw invalid(AT, "Invalid value at 'generation_config': expected a GenerationConfig.");
  const unknown = unknownKeyIn(raw, FIELDS, AT);
  if (unknown) throw unknown;
  const out: Json = {};
  for (const [name, { hub, integer }] of CARRIED) {
    const value = numberAt(raw, name, AT, integer);
    if (value !== undefined) out[hub] = value;
  }
  if (typeof out.max_tokens === 'number' && out.max_tokens < 1)
    throw invalid(`${AT}.maxOutputTokens`, `${AT}.maxOutputTokens must be at least 1.`);
  for (const name of HINTS)
    if (read(raw, name) != null) adjust.drop(`${AT}.${name}`, () => unsupported(`${AT}.${name}`));
  for (const name of REFUSED) {
    const value = read(raw, name);
    if (value != null && value !== false) throw unsupported(`${AT}.${name}`);
  }
  Object.assign(out, stopOf(raw), candidatesOf(raw), modalitiesOf(raw));
  Object.assign(out, formatOf(raw, adjust), thinkingOf(read(raw, 'thinkingConfig'), adjust));
  return out as Partial<ChatRequest>;
}

function stopOf(g: Json): Json {
  const stops = read(g, 'stopSequences');
  if (stops === undefined || stops === null) return {};
  if (!Array.isArray(stops) || !stops.every((s) => typeof s === 'string'))
    throw invalid(
      `${AT}.stopSequences`,
      `Invalid value at 'generation_config.stop_sequences': expected a list of strings.`,
    );
  return stops.length > 0 ? { stop: [...stops] } : {};
}

function candidatesOf(g: Json): Json {
  const n = numberAt(g, 'candidateCount', AT, true);
  if (n !== undefined && n < 1)
    throw invalid(`${AT}.candidateCount`, `${AT}.candidateCount must be at least 1.`);
  return n !== undefined && n > 1 ? { n } : {};
}

function modalitiesOf(g: Json): Json {
  const modalities = read(g, 'responseModalities');
  if (modalities === undefined || modalities === null) return {};
  if (!Array.isArray(modalities))
    throw invalid(`${AT}.responseModalities`, `${AT}.responseModalities must be a list.`);
  for (const m of modalities) {
    const name = enumOf(m, `${AT}.responseModalities`);
    if (name !== 'TEXT') throw unsupported(`${AT}.responseModalities (${String(m)})`);
  }
  return {};
}

/**
 * JSON output: `responseJsonSchema` as is (Google's upper-case type names lower-cased),
 * `responseSchema` converted from Google's OpenAPI subset, no schema at all -> json_object. `strict` is left out: Google's schemas may leave
 * properties optional, which OpenAI's strict mode refuses. Enum output (`text/x.enum`) has no
 * hub equivalent.
 */
function formatOf(g: Json, adjust: Adjustments): Json {
  const mime = read(g, 'responseMimeType');
  const openApi = read(g, 'responseSchema');
  const jsonSchema = read(g, 'responseJsonSchema');
  const hasSchema = openApi != null || jsonSchema != null;
  if (mime === undefined || mime === null || mime === 'text/plain') {
    if (!hasSchema) return {};
    throw invalid(
      `${AT}.responseMimeType`,
      `* GenerateContentRequest.generation_config.response_mime_type: a response schema needs responseMimeType application/json.`,
    );
  }
  if (mime === 'text/x.enum') throw unsupported(`${AT}.responseMimeType (text/x.enum)`);
  if (mime !== 'application/json') {
    throw invalid(
      `${AT}.responseMimeType`,
      `* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are text/plain, application/json and text/x.enum.`,
    );
  }
  if (openApi != null && jsonSchema != null)
    throw invalid(
      `${AT}.responseSchema`,
      `${AT}.responseSchema and responseJsonSchema are mutually exclusive.`,
    );
  if (!hasSchema) return { response_format: { type: 'json_object' } };
  const given = jsonSchema ?? openApi;
  if (!isObject(given))
    throw invalid(`${AT}.responseSchema`, `${AT}.responseSchema must be a schema object.`);
  const dropped = new Set<string>();
  const schema = jsonSchema != null ? withJsonSchemaTypes(given) : jsonSchemaOf(given, dropped);
  for (const keyword of dropped) adjust.drop(`${AT}.responseSchema.${keyword}`);
  return { response_format: { type: 'json_schema', json_schema: { name: 'response', schema } } };
}
