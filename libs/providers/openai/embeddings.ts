import { type GatewayError } from '#libs/protocol';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import { invalid, notTranslatable } from './fields.js';

/**
 * OpenAI's embeddings request and response, for the folders whose vendor embeds in another shape
 * (their `DirectRoute`s): what the client asked, checked as OpenAI checks it, and the answer
 * built as OpenAI writes it. A passthrough (type `openai`) never comes here.
 */

/** An embeddings request as the vendor translators read it. */
export interface EmbeddingsRequest {
  /** The texts, in order; one vector each. */
  readonly inputs: readonly string[];
  /** `dimensions`, when the client asked for shortened vectors. */
  readonly dimensions: number | null;
  readonly encoding: 'float' | 'base64';
}

/** OpenAI's own limit on `input` items (larger arrays are its 400). */
export const MAX_EMBEDDING_INPUTS = 2048;

const FIELDS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * The body's request, or the 400 (naming the field) OpenAI or the vendor would answer. `user` is a
 * hint for OpenAI's abuse monitoring that no other vendor takes: dropped and recorded. Token-id
 * inputs are refused: they are ids of OpenAI's tokenizer, which the vendor's model does not read.
 */
export function readEmbeddingsRequest(body: JsonObject, adjust: Adjustments): EmbeddingsRequest {
  for (const key of Object.keys(body)) {
    if (!FIELDS.has(key)) throw invalid(key, `Unrecognized request argument supplied: ${key}`);
  }
  if (body.user !== undefined) {
    if (typeof body.user !== 'string') throw invalid('user', "'user' must be a string.");
    adjust.drop('user');
  }
  return {
    inputs: inputsOf(body.input),
    dimensions: dimensionsOf(body.dimensions),
    encoding: encodingOf(body),
  };
}

function inputsOf(input: unknown): string[] {
  const list = typeof input === 'string' ? [input] : Array.isArray(input) ? input : null;
  if (list === null || list.length === 0)
    throw invalid('input', "'input' must be a non-empty string or a non-empty array of strings.");
  if (list.some((item) => typeof item === 'number' || Array.isArray(item)))
    throw notTranslatable('input', 'token-id inputs need the model\u2019s own tokenizer; send the text');
  if (list.length > MAX_EMBEDDING_INPUTS)
    throw invalid('input', `'input' has ${list.length} items; at most ${MAX_EMBEDDING_INPUTS} are allowed.`);
  list.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw invalid(`input[${i}]`, `'input[${i}]' must be a string.`);
    if (item === '') throw invalid(`input[${i}]`, `'input[${i}]' must not be empty.`);
  });
  return list as string[];
}

function dimensionsOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw invalid('dimensions', "'dimensions' must be a positive integer.");
  return value;
}

function encodingOf(body: JsonObject): 'float' | 'base64' {
  const value = body.encoding_format;
  if (value === undefined || value === null || value === 'float') return 'float';
  if (value === 'base64') return 'base64';
  throw invalid(
    'encoding_format',
    `Invalid value: '${String(value)}'. Supported values are: 'float' and 'base64'.`,
  );
}

/** The 400 for a `dimensions` the model cannot give. */
export const dimensionsRefused = (why: string): GatewayError => invalid('dimensions', `'dimensions' ${why}.`);

/**
 * OpenAI's answer: one `embedding` object per input, in order, the vectors as numbers or (base64)
 * as their float32 little-endian bytes, which is what OpenAI's SDKs decode.
 */
export function embeddingsResponse(
  vectors: readonly (readonly number[])[],
  model: string,
  encoding: 'float' | 'base64',
  promptTokens: number,
): JsonObject {
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? float32Base64(vector) : vector,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The vector scaled to length 1, as OpenAI's embeddings are (a shortened one included). */
export function unitLength(vector: readonly number[]): number[] {
  let norm = 0;
  for (const v of vector) norm += v * v;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return vector.map((v) => v * scale);
}
