import { type DirectAnswer, type DirectPlan, type DirectReply, type DirectRoute } from '../src/adapter.js';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject, usageOfTotal } from '../src/types.js';
import {
  dimensionsRefused,
  type EmbeddingsRequest,
  embeddingsResponse,
  readEmbeddingsRequest,
  unitLength,
} from '../openai/embeddings.js';
import { upstreamError } from '../openai/fields.js';
import { vertexPaths } from './endpoint.js';

/**
 * OpenAI embeddings clients on Vertex AI's text embedding models, through `predict`:
 * `{instances: [{content}], parameters: {autoTruncate, outputDimensionality}}` ->
 * `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}]}`.
 */

/** What Vertex takes of one model in a `predict` call (Google's "Get text embeddings" page). */
export interface VertexEmbeddingLimits {
  /** Instances per call: gemini-embedding-001 takes one, the others 250. */
  readonly perCall: number;
  /** `outputDimensionality` range; the upper end is the model's full size. */
  readonly minDimensions: number;
  readonly maxDimensions: number;
}

const GEMINI_EMBEDDING: VertexEmbeddingLimits = { perCall: 1, minDimensions: 128, maxDimensions: 3072 };
const TEXT_EMBEDDING: VertexEmbeddingLimits = { perCall: 250, minDimensions: 1, maxDimensions: 768 };

/**
 * Vertex refuses a call whose texts come to more than 20,000 tokens. Google's tokenizer is not the
 * gateway's, so the texts of one call are held to 20,000 UTF-8 bytes instead: a token is never
 * less than a byte, so no call can pass the limit (English runs about 4 bytes a token, so a batch
 * takes a few more calls than Vertex would need). A text longer than that alone gets its own call.
 */
export const CALL_BYTES = 20_000;

/** Calls of one request in flight at once: Vertex's quota counts calls per minute. */
export const VERTEX_EMBEDDING_CONCURRENCY = 8;

const EMBEDDING_MODEL =
  /^(gemini-embedding-|text-embedding-|text-multilingual-embedding-|textembedding-gecko)/;

/** Whether a Google model on Vertex is a text embedding model (served by `predict`, not generateContent). */
export function isVertexEmbeddingModel(upstreamModel: string): boolean {
  return EMBEDDING_MODEL.test(upstreamModel);
}

export function vertexEmbeddingLimits(upstreamModel: string): VertexEmbeddingLimits {
  return upstreamModel.startsWith('gemini-embedding-') ? GEMINI_EMBEDDING : TEXT_EMBEDDING;
}

/** The inputs cut into calls, in order: at most `perCall` texts and CALL_BYTES of them each. */
export function batchesOf(inputs: readonly string[], perCall: number): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const text of inputs) {
    const size = Buffer.byteLength(text);
    if (batch.length > 0 && (batch.length === perCall || bytes + size > CALL_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(text);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function checkDimensions(dimensions: number | null, limits: VertexEmbeddingLimits): void {
  if (dimensions === null) return;
  if (dimensions < limits.minDimensions || dimensions > limits.maxDimensions)
    throw dimensionsRefused(
      `must be between ${limits.minDimensions} and ${limits.maxDimensions} for this model (got ${dimensions})`,
    );
}

/**
 * The parameters of every call. `autoTruncate: false`: OpenAI refuses a text longer than the
 * model takes, and Vertex would otherwise embed its beginning silently.
 */
function parametersOf(req: EmbeddingsRequest, adjust: Adjustments): JsonObject {
  if (req.dimensions === null) return { autoTruncate: false };
  adjust.carried('dimensions as outputDimensionality (the shortened vectors scaled to length 1)');
  return { autoTruncate: false, outputDimensionality: req.dimensions };
}

function plan(body: JsonObject, upstreamModel: string, adjust: Adjustments): DirectPlan {
  const req = readEmbeddingsRequest(body, adjust);
  const limits = vertexEmbeddingLimits(upstreamModel);
  checkDimensions(req.dimensions, limits);
  const parameters = parametersOf(req, adjust);
  const path = vertexPaths.predict(upstreamModel);
  const batches = batchesOf(req.inputs, limits.perCall);
  return {
    calls: batches.map((texts) => ({
      path,
      body: { instances: texts.map((content) => ({ content })), parameters },
      headers: {},
    })),
    concurrency: VERTEX_EMBEDDING_CONCURRENCY,
    answer: (answers, ctx) => openAIAnswer(answers, batches, req, ctx.model),
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Counted {
  tokens: number;
  characters: number;
}

/**
 * The characters Vertex bills one call for (`metadata.billableCharacterCount`: text embedding
 * models are billed per character, white space not counted); 0 when absent (gemini-embedding-001
 * is billed per token and reports none).
 */
function billableCharactersOf(body: unknown): number {
  const metadata = isObject(body) ? body.metadata : undefined;
  const count = isObject(metadata) ? metadata.billableCharacterCount : undefined;
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
}

/** One `predict` answer's vectors, checked against the texts sent; its counts added to `count`. */
function vectorsOf(body: unknown, sent: number, count: Counted): number[][] {
  const predictions = isObject(body) ? body.predictions : undefined;
  if (!Array.isArray(predictions) || predictions.length !== sent)
    throw upstreamError('Vertex AI returned a different number of embeddings than texts sent.');
  count.characters += billableCharactersOf(body);
  return predictions.map((p: unknown) => {
    const embeddings = isObject(p) ? p.embeddings : undefined;
    const values = isObject(embeddings) ? embeddings.values : undefined;
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'number'))
      throw upstreamError('Vertex AI returned a prediction without embedding values.');
    const statistics = isObject(embeddings) ? embeddings.statistics : undefined;
    const tokens = isObject(statistics) ? statistics.token_count : undefined;
    if (typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0) count.tokens += tokens;
    return values as number[];
  });
}

/**
 * The answers as OpenAI's, the usage Vertex counted: per text (`token_count`) and per call
 * (`billableCharacterCount`), summed over the calls of the batch. Shortened vectors
 * are scaled back to length 1: OpenAI's are, and Vertex only cuts them.
 */
function openAIAnswer(
  answers: readonly DirectAnswer[],
  batches: readonly (readonly string[])[],
  req: EmbeddingsRequest,
  model: string,
): DirectReply {
  const count: Counted = { tokens: 0, characters: 0 };
  const vectors = answers.flatMap((a, i) => vectorsOf(a.body, batches[i]!.length, count));
  const shaped = req.dimensions === null ? vectors : vectors.map(unitLength);
  return {
    body: embeddingsResponse(shaped, model, req.encoding, count.tokens),
    usage: usageOfTotal(count.tokens, { characters: count.characters }),
  };
}

export const vertexEmbeddingsRoute: DirectRoute = { name: 'vertex-predict-embeddings', plan };
