import { randomUUID } from 'node:crypto';
import { embed } from '../mock-provider/openai-embeddings.js';
import { tokensOf } from '../mock-provider/text.js';
import { type AwsReply, validation } from './errors.js';

/**
 * InvokeModel of Bedrock's text embedding models, with AWS's documented bodies and limits:
 * Amazon Titan Text Embeddings V2 (`{inputText, dimensions, normalize, embeddingTypes}` ->
 * `{embedding, embeddingsByType, inputTextTokenCount}`; 256, 512 or 1024 dimensions, 8,192
 * tokens and 50,000 characters) and Cohere Embed v3 (`{texts, input_type, truncate,
 * embedding_types}` -> `{embeddings, id, response_type, texts}`; 96 texts of 2,048 characters,
 * 512 tokens each unless truncated, 1024 dimensions). Every answer carries Bedrock's
 * `X-Amzn-Bedrock-Input-Token-Count`. Vectors are the mock's deterministic unit vectors.
 */

type Json = Record<string, unknown>;

const TITAN_V2 = /(^|[.:/])amazon\.titan-embed-text-v2/;
const COHERE_V3 = /(^|[.:/])cohere\.embed-(english|multilingual)-v3/;

export const isMockEmbeddingModel = (model: string): boolean => TITAN_V2.test(model) || COHERE_V3.test(model);

/** AWS's JSON-schema wording for a body it cannot read. */
const malformed = (why: string): AwsReply =>
  validation(`Malformed input request: ${why}, please reformat your input and try again.`);

function extraneous(body: Json, allowed: readonly string[]): AwsReply | null {
  const key = Object.keys(body).find((k) => !allowed.includes(k));
  return key === undefined ? null : malformed(`#: extraneous key [${key}] is not permitted`);
}

function answered(body: Json, inputTokens: number): AwsReply {
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-amzn-requestid': randomUUID(),
      'x-amzn-bedrock-invocation-latency': '42',
      'x-amzn-bedrock-input-token-count': String(inputTokens),
    },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** An embedding model's InvokeModel answer (a text embedding model never streams). */
export function invokeEmbedding(body: Json, model: string, stream: boolean): AwsReply {
  if (stream) return validation('The model is unsupported for streaming.');
  return TITAN_V2.test(model) ? titan(body) : cohere(body);
}

const TITAN_KEYS = ['inputText', 'dimensions', 'normalize', 'embeddingTypes'];
const TITAN_DIMENSIONS = [256, 512, 1024];

function titan(body: Json): AwsReply {
  const refused = extraneous(body, TITAN_KEYS);
  if (refused) return refused;
  const text = body.inputText;
  if (typeof text !== 'string') return malformed('#: required key [inputText] not found');
  if (text.length === 0) return malformed('#/inputText: expected minLength: 1, actual: 0');
  if (text.length > 50_000)
    return malformed(`#/inputText: expected maxLength: 50000, actual: ${text.length}`);
  const dims = body.dimensions ?? 1024;
  if (typeof dims !== 'number' || !TITAN_DIMENSIONS.includes(dims))
    return malformed(`#/dimensions: ${String(dims)} is not a valid enum value`);
  if (body.normalize !== undefined && typeof body.normalize !== 'boolean')
    return malformed('#/normalize: expected type: Boolean');
  const types = body.embeddingTypes ?? ['float'];
  if (!Array.isArray(types) || types.length === 0 || types.some((t) => t !== 'float' && t !== 'binary'))
    return malformed('#/embeddingTypes: expected a non-empty list of "float" or "binary"');
  const tokens = tokensOf(text);
  if (tokens > 8192)
    return validation(
      `400 Bad Request: Too many input tokens. Max input tokens: 8192, request input token count: ${tokens}`,
    );
  const unit = embed(text, dims);
  // normalize: false gives the raw vector; the mock's raw one is its unit vector scaled up.
  const vector = Array.from(body.normalize === false ? unit.map((v) => v * 7.5) : unit);
  const byType: Json = {};
  if (types.includes('float')) byType.float = vector;
  if (types.includes('binary')) byType.binary = vector.map((v) => (v > 0 ? 1 : 0));
  return answered({ embedding: vector, embeddingsByType: byType, inputTextTokenCount: tokens }, tokens);
}

const COHERE_KEYS = ['texts', 'images', 'input_type', 'truncate', 'embedding_types'];
const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const COHERE_TYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary'];

function cohere(body: Json): AwsReply {
  const refused = extraneous(body, COHERE_KEYS) ?? cohereFields(body);
  if (refused) return refused;
  const texts = body.texts as string[];
  const truncate = body.truncate ?? 'NONE';
  const counts = texts.map(cohereTokens);
  const over = counts.findIndex((c) => c > 512);
  if (truncate === 'NONE' && over >= 0)
    return validation(
      `invalid request: text at index ${over} is ${counts[over]} tokens long, more than the model's maximum of 512; use truncate START or END`,
    );
  const tokens = counts.reduce((sum, c) => sum + Math.min(c, 512), 0);
  const vectors = texts.map((t) => Array.from(embed(t, 1024)));
  const types = body.embedding_types as string[] | undefined;
  const common = { id: randomUUID(), texts };
  if (types === undefined)
    return answered({ ...common, embeddings: vectors, response_type: 'embeddings_floats' }, tokens);
  const byType: Json = {};
  for (const type of types) byType[type] = vectors.map((v) => quantized(v, type));
  return answered({ ...common, embeddings: byType, response_type: 'embeddings_by_type' }, tokens);
}

/**
 * Cohere's count: ASCII text at about four characters a token, as the mock counts everywhere, and
 * each other character a token of its own (how its tokenizer reads CJK text), so a text within
 * the 2,048 characters can still pass the 512 tokens.
 */
function cohereTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text)
    if (ch.charCodeAt(0) < 0x80) ascii++;
    else other++;
  return Math.ceil(ascii / 4) + other;
}

function cohereFields(body: Json): AwsReply | null {
  if (body.input_type === undefined) return malformed('#: required key [input_type] not found');
  if (!INPUT_TYPES.includes(String(body.input_type)))
    return malformed(`#/input_type: ${String(body.input_type)} is not a valid enum value`);
  if (body.images !== undefined)
    return validation('invalid request: only texts are accepted by this model endpoint');
  const texts = body.texts;
  if (!Array.isArray(texts)) return malformed('#: required key [texts] not found');
  if (texts.length > 96) return malformed(`#/texts: expected maximum item count: 96, found: ${texts.length}`);
  for (const [i, t] of texts.entries()) {
    if (typeof t !== 'string') return malformed(`#/texts/${i}: expected type: String`);
    if ([...t].length > 2048)
      return malformed(`#/texts/${i}: expected maxLength: 2048, actual: ${[...t].length}`);
  }
  if (body.truncate !== undefined && !['NONE', 'START', 'END'].includes(String(body.truncate)))
    return malformed(`#/truncate: ${String(body.truncate)} is not a valid enum value`);
  const types = body.embedding_types;
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => !COHERE_TYPES.includes(String(t)))))
    return malformed('#/embedding_types: expected a list of float, int8, uint8, binary or ubinary');
  return null;
}

/** Cohere's compressed types, from the float vector (int8: scaled to -128..127, binary: packed signs). */
function quantized(vector: readonly number[], type: string): number[] {
  if (type === 'float') return [...vector];
  const scaled = vector.map((v) => Math.max(-128, Math.min(127, Math.round(v * 127 * 8))));
  if (type === 'int8') return scaled;
  if (type === 'uint8') return scaled.map((v) => v + 128);
  const bytes: number[] = [];
  for (let i = 0; i < vector.length; i += 8) {
    let byte = 0;
    for (let j = 0; j < 8; j++) byte = (byte << 1) | ((vector[i + j] ?? 0) > 0 ? 1 : 0);
    bytes.push(type === 'ubinary' ? byte : byte - 128);
  }
  return bytes;
}
