import { type DirectAnswer, type DirectPlan } from '../src/adapter.js';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject, usageOfTotal } from '../src/types.js';
import { dimensionsRefused, embeddingsResponse, readEmbeddingsRequest } from '../openai/embeddings.js';
import { invalid, upstreamError } from '../openai/fields.js';
import { invokePath } from './endpoint.js';
import { BEDROCK_EMBEDDING_CONCURRENCY, inputTokensHeader, isObject, vectorOf } from './embed-support.js';

/**
 * Cohere Embed v3 (English, Multilingual) through InvokeModel: `{texts, input_type, truncate}`
 * -> `{embeddings, id, response_type, texts}`, the input tokens in Bedrock's
 * `X-Amzn-Bedrock-Input-Token-Count` header. Up to 96 texts per call, each of at most 2,048
 * characters (AWS's limits): more inputs are cut into calls of 96.
 */

export const COHERE_TEXTS_PER_CALL = 96;
export const COHERE_MAX_CHARS = 2048;
/** The one size Cohere's v3 vectors have. */
export const COHERE_DIMENSIONS = 1024;

/**
 * `input_type` is required and OpenAI has no such field: `search_document`, since what a client
 * embeds in bulk is the corpus it searches. `truncate: NONE` (Cohere's default, said explicitly):
 * a text longer than the model takes is refused, as OpenAI refuses it, never cut silently.
 */
const FIXED = { input_type: 'search_document', truncate: 'NONE' } as const;

function checkInputs(inputs: readonly string[]): void {
  inputs.forEach((text, i) => {
    // Code points, as AWS counts; the string's length is an upper bound that settles most at once.
    if (text.length <= COHERE_MAX_CHARS) return;
    const chars = [...text].length;
    if (chars > COHERE_MAX_CHARS)
      throw invalid(
        `input[${i}]`,
        `'input[${i}]' has ${chars} characters; this model takes at most ${COHERE_MAX_CHARS} per input.`,
      );
  });
}

function checkDimensions(dimensions: number | null, adjust: Adjustments): void {
  if (dimensions === null) return;
  if (dimensions !== COHERE_DIMENSIONS)
    throw dimensionsRefused(`must be ${COHERE_DIMENSIONS} for this model, its only size (got ${dimensions})`);
  adjust.carried(`dimensions ${COHERE_DIMENSIONS} as the model's own size`);
}

function batches(inputs: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < inputs.length; i += COHERE_TEXTS_PER_CALL)
    out.push(inputs.slice(i, i + COHERE_TEXTS_PER_CALL));
  return out;
}

/** One answer's vectors, checked against the texts sent. */
function vectorsOf(a: DirectAnswer, sent: number): number[][] {
  const embeddings = isObject(a.body) ? a.body.embeddings : undefined;
  if (!Array.isArray(embeddings) || embeddings.length !== sent)
    throw upstreamError('Bedrock returned a different number of embeddings than texts sent.');
  return embeddings.map(vectorOf);
}

export function cohereEmbedPlan(body: JsonObject, upstreamModel: string, adjust: Adjustments): DirectPlan {
  const req = readEmbeddingsRequest(body, adjust);
  checkInputs(req.inputs);
  checkDimensions(req.dimensions, adjust);
  const path = invokePath(upstreamModel, false);
  const texts = batches(req.inputs);
  return {
    calls: texts.map((batch) => ({ path, body: { texts: batch, ...FIXED }, headers: {} })),
    concurrency: BEDROCK_EMBEDDING_CONCURRENCY,
    answer: (answers, ctx) => {
      const vectors = answers.flatMap((a, i) => vectorsOf(a, texts[i]!.length));
      const counts = answers.map((a) => inputTokensHeader(a.headers));
      // Without Bedrock's count for every call there is no count: the edge estimates instead.
      const known = counts.every((c) => c !== null);
      const tokens = known ? counts.reduce<number>((sum, c) => sum + c!, 0) : 0;
      return {
        body: embeddingsResponse(vectors, ctx.model, req.encoding, tokens),
        usage: known ? usageOfTotal(tokens, {}) : null,
      };
    },
  };
}
