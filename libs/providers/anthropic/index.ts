export { anthropicAdapter, anthropicProvider, messagesClient } from './adapter.js';
export { countTokensApi, messagesApi } from './client-apis.js';
export { messagesWire } from './wire-format.js';
export { anthropicModelsApi } from './models.js';
export { anthropicContextExceeded } from './context-window.js';

export * from './endpoint.js';
export { countMessagesTokens, countTokensInvalid } from './count-tokens.js';
export { finishReasonOf, stopReasonOf } from './mapping.js';
export {
  AnthropicStreamUsage,
  anthropicUsageOf,
  canonicalOfHub,
  canonicalUsageOf,
  hubUsageOf,
  usageFromMessage,
} from './usage.js';
export { anthropicRequestOf } from './request.js';
export { anthropicErrorMessage, hubCompletionOf } from './response.js';
export { anthropicStreamToHub } from './stream.js';
export { hubRequestOfMessages } from './client-request.js';
export { messageOfCompletion } from './client-response.js';
export { messagesStreamFromHub } from './client-stream.js';
export * from './descriptor.js';
