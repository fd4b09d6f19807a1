export {
  bedrockAdapter,
  bedrockClaudeAdapter,
  bedrockConverseAdapter,
  bedrockEmbeddingsAdapter,
  converseProvider,
} from './adapter.js';
export { bedrockEmbeddingsRoute, isBedrockEmbeddingModel } from './embeddings.js';
export { inputTokensHeader } from './embed-support.js';
export { COHERE_DIMENSIONS, COHERE_MAX_CHARS, COHERE_TEXTS_PER_CALL } from './embed-cohere.js';
export { TITAN_DIMENSIONS } from './embed-titan.js';
export { converseWire, invokeMessagesWire } from './wire-format.js';
export { BEDROCK_BETAS, invokeMessagesRoute, prepareInvokeMessages } from './native.js';
export * from './endpoint.js';
export { bedrockControlPlaneUrl, bedrockProbeUrl, LIST_FOUNDATION_MODELS_PATH } from './probe.js';
export { converseDecoder, FrameSplitter, headerOf, invokeMessagesDecoder } from './event-stream.js';
export {
  anthropicErrorTypeOf,
  bedrockClientError,
  bedrockErrorMessage,
  bedrockRefusalReason,
  finishReasonOf,
} from './mapping.js';
export { canonicalUsageOf, hubUsageOf, usageFromConverse } from './usage.js';
export { converseRequestOf } from './request.js';
export { hubCompletionOfConverse } from './response.js';
export { converseStreamToHub } from './stream.js';
export type * from './wire.js';
export * from './descriptor.js';
