import { openAIError } from './errors.js';
import {
  openAIInt,
  openAIMissing,
  openAIModel,
  openAIUnrecognized,
  unknownField,
  type Check,
} from './params.js';
import { tokensForLength } from './text.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';

const PARAMS = new Set(['input', 'model', 'dimensions', 'encoding_format', 'user']);

/** `POST /v1/embeddings`: one deterministic unit vector per input, as floats or base64 float32 LE. */
export function embeddings({ body, behaviour }: EndpointInput): EndpointReply {
  const invalid = validate(body);
  if (invalid) return invalid;
  const inputs = inputList(body.input);
  const dims = typeof body.dimensions === 'number' ? body.dimensions : behaviour.embeddingDimensions;
  const base64 = body.encoding_format === 'base64';
  const data = inputs.map((text, index) => {
    const vector = embed(text, dims);
    return { object: 'embedding', index, embedding: base64 ? toBase64(vector) : Array.from(vector) };
  });
  const promptTokens = tokensForLength(inputs.reduce((sum, t) => sum + t.length, 0));
  return {
    kind: 'json',
    status: 200,
    body: {
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
  };
}

/** A unit vector seeded by the text's FNV-1a hash: same text, same vector. */
export function embed(text: string, dims: number): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193);
  const out = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    // mulberry32: tiny, fast and good enough for well-spread test vectors.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    out[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dims; i++) out[i] = (out[i] as number) * scale;
  return out;
}

/** OpenAI's base64 encoding: the float32 values, little-endian, base64 of the raw bytes. */
function toBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes.toString('base64');
}

function validate(body: JsonObject): Check {
  const unknown = unknownField(body, PARAMS);
  if (unknown !== null) return openAIUnrecognized(unknown);
  const model = openAIModel(body);
  if (model) return model;
  if (body.input === undefined) return openAIMissing('input');
  const inputs = inputList(body.input);
  if (inputs.length === 0 || inputs.some((t) => t === '')) {
    return openAIError(
      400,
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      'invalid_request_error',
    );
  }
  if (
    body.encoding_format !== undefined &&
    body.encoding_format !== 'float' &&
    body.encoding_format !== 'base64'
  ) {
    return openAIError(
      400,
      `Invalid value: '${String(body.encoding_format)}'. Supported values are: 'float' and 'base64'.`,
      'invalid_request_error',
      { param: 'encoding_format', code: 'invalid_value' },
    );
  }
  return openAIInt(body, 'dimensions', 1, 8192);
}

/** A string, strings, a token array or token arrays (tokens read as their numbers joined by spaces). */
function inputList(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  if (input.length > 0 && input.every((t) => typeof t === 'number')) return [input.join(' ')];
  return input.map((t) => (typeof t === 'string' ? t : Array.isArray(t) ? t.join(' ') : ''));
}
