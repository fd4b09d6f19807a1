import { type DirectAnswer, type DirectPlan } from '../src/adapter.js';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject, usageOfTotal } from '../src/types.js';
import {
  dimensionsRefused,
  type EmbeddingsRequest,
  embeddingsResponse,
  readEmbeddingsRequest,
} from '../openai/embeddings.js';
import { upstreamError } from '../openai/fields.js';
import { invokePath } from './endpoint.js';
import { BEDROCK_EMBEDDING_CONCURRENCY, isObject, vectorOf } from './embed-support.js';

/**
 * Amazon Titan Text Embeddings V2 through InvokeModel: `{inputText, dimensions, normalize}` ->
 * `{embedding, inputTextTokenCount}`. It embeds one text per call, so a request of several inputs
 * is as many calls (in flight `BEDROCK_EMBEDDING_CONCURRENCY` at once), their usage summed: an
 * OpenAI client sends batches (LangChain, LlamaIndex), and refusing them would leave every such
 * client unable to use the model at all.
 */

/** The sizes Titan V2 gives (1024 when none is asked). */
export const TITAN_DIMENSIONS: readonly number[] = [256, 512, 1024];

function titanBody(text: string, req: EmbeddingsRequest): JsonObject {
  // normalize: OpenAI's vectors have length 1 (Titan's default, said explicitly).
  const body: JsonObject = { inputText: text, normalize: true };
  if (req.dimensions !== null) body.dimensions = req.dimensions;
  return body;
}

export function titanEmbedPlan(body: JsonObject, upstreamModel: string, adjust: Adjustments): DirectPlan {
  const req = readEmbeddingsRequest(body, adjust);
  if (req.dimensions !== null && !TITAN_DIMENSIONS.includes(req.dimensions))
    throw dimensionsRefused(`must be 256, 512 or 1024 for this model (got ${req.dimensions})`);
  const path = invokePath(upstreamModel, false);
  return {
    calls: req.inputs.map((text) => ({ path, body: titanBody(text, req), headers: {} })),
    concurrency: BEDROCK_EMBEDDING_CONCURRENCY,
    answer: (answers, ctx) => {
      let tokens = 0;
      const vectors = answers.map((a: DirectAnswer) => {
        if (!isObject(a.body))
          throw upstreamError('Bedrock returned an embedding answer that is not an object.');
        const count = a.body.inputTextTokenCount;
        if (typeof count === 'number' && Number.isInteger(count) && count > 0) tokens += count;
        return vectorOf(a.body.embedding);
      });
      return {
        body: embeddingsResponse(vectors, ctx.model, req.encoding, tokens),
        usage: usageOfTotal(tokens, {}),
      };
    },
  };
}
