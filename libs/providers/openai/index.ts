export * from './native.js';
export * from './usage.js';
export * from './embeddings.js';
export {
  classifyChatStreamData,
  classifyResponsesStreamData,
  type OpenAIStreamEvent,
} from './stream-meter.js';
export * from './client-chat.js';
export * from './provider.js';
export * from './client-responses.js';
export * from './client-completions.js';
export * from './wire-format.js';
export * from './client-apis.js';
export * from './adapter.js';
export * from './models.js';
export { compatibleContextExceeded, openAIContextExceeded } from './context-window.js';
export * from './descriptor.js';
export * from './realtime-usage.js';
export * from './realtime-protocol.js';
export * from './realtime-route.js';
