import { type DirectPlan, type DirectRoute } from '../src/adapter.js';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import { cohereEmbedPlan } from './embed-cohere.js';
import { titanEmbedPlan } from './embed-titan.js';

/**
 * OpenAI embeddings clients on Bedrock's text embedding models, through InvokeModel with each
 * model's own body: Amazon Titan Text Embeddings V2 (one text per call) and Cohere Embed v3
 * (up to 96 texts per call). Other embedding models (Titan V1, Titan Multimodal, Cohere Embed
 * v4) take other bodies and are not served as such.
 */

const TITAN_V2 = /(^|[.:/])amazon\.titan-embed-text-v2/;
const COHERE_V3 = /(^|[.:/])cohere\.embed-(english|multilingual)-v3/;

/** Whether a Bedrock model ID (a foundation model, an inference profile, an ARN) is a text embedding model served here. */
export function isBedrockEmbeddingModel(modelId: string): boolean {
  return TITAN_V2.test(modelId) || COHERE_V3.test(modelId);
}

function plan(body: JsonObject, upstreamModel: string, adjust: Adjustments): DirectPlan {
  return TITAN_V2.test(upstreamModel)
    ? titanEmbedPlan(body, upstreamModel, adjust)
    : cohereEmbedPlan(body, upstreamModel, adjust);
}

export const bedrockEmbeddingsRoute: DirectRoute = { name: 'bedrock-invoke-embeddings', plan };
