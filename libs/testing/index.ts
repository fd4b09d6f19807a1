export { startMockProvider, type MockProviderOptions } from './src/mock-provider/server.js';
export {
  DEFAULT_BEHAVIOUR,
  type MockBehaviour,
  type MockBehaviourPatch,
} from './src/mock-provider/behaviour.js';
export type { MockProvider, MockStats, RecordedRequest } from './src/mock-provider/types.js';
export { embed as mockEmbedding } from './src/mock-provider/openai-embeddings.js';
export { replyText as mockReplyText, tokensOf as mockTokensOf } from './src/mock-provider/text.js';
