/**
 * Test support shared by e2e tests, fault-injection tests and the benchmark.
 *
 * The mock provider fakes OpenAI (`/v1/chat/completions`, `/v1/completions`, `/v1/responses`,
 * `/v1/embeddings`, `/v1/models`), Anthropic (`/v1/messages`) and Google's Gemini API
 * (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent`, `:countTokens`,
 * `/v1beta/models`: its base URL is the mock's root) on one port, and the clouds' URLs for them
 * (Azure OpenAI under `/openai/`, Vertex AI under `/v1/projects/`, its embedding models' `predict`
 * included). Behaviour is set at start, with `setBehaviour`, over HTTP (`POST /__mock/behaviour`,
 * `POST /__mock/reset`, `GET /__mock/stats`, `GET /__mock/requests`), or per request with the
 * headers `x-mock-fail: <status>`, `x-mock-latency-ms` and `x-mock-ttft-ms`.
 */
export { startMockProvider, type MockProviderOptions } from './src/mock-provider/server.js';
export {
  DEFAULT_BEHAVIOUR,
  type MockBehaviour,
  type MockBehaviourPatch,
} from './src/mock-provider/behaviour.js';
export type { MockProvider, MockStats, RecordedRequest } from './src/mock-provider/types.js';
export { embed as mockEmbedding } from './src/mock-provider/openai-embeddings.js';
export { replyText as mockReplyText, tokensOf as mockTokensOf } from './src/mock-provider/text.js';
export { validateMessagesRequest } from './src/mock-provider/validate-anthropic.js';
export { validateGeminiRequest } from './src/mock-provider/validate-gemini.js';
export { signPart as mockThoughtSignature } from './src/mock-provider/gemini-signatures.js';
export { validateChatRequest } from './src/mock-provider/validate-openai-chat.js';
export {
  parseRealtimeEvent,
  validateRealtimeItem,
  validateRealtimeResponse,
  validateRealtimeSession,
  type RealtimeRefusal,
} from './src/mock-provider/validate-openai-realtime.js';
export { isRealtimeModel } from './src/mock-provider/openai-realtime.js';
export { validateResponsesRequest } from './src/mock-provider/validate-openai-responses.js';
export { longestStallDuring, unbrokenWord } from './src/event-loop.js';
export {
  startMockEntra,
  MOCK_ENTRA_CA_FILE,
  type MockEntra,
  type MockEntraOptions,
  type IssuedToken,
} from './src/mock-entra/server.js';
export { verifyEntraToken, type JwtVerdict } from './src/mock-entra/jwt.js';
export {
  DEFAULT_AZURE as DEFAULT_AZURE_BEHAVIOUR,
  AZURE_API_VERSIONS,
  type AzureBehaviour,
} from './src/mock-provider/azure.js';
export {
  startMockGoogle,
  type MockGoogle,
  type MockGoogleOptions,
  type IssuedGoogleToken,
  type ServiceAccountKey,
} from './src/mock-google/server.js';
export {
  verifyGoogleToken,
  CLOUD_PLATFORM_SCOPE as MOCK_GOOGLE_SCOPE,
  type GoogleTokenVerdict,
} from './src/mock-google/tokens.js';
export {
  DEFAULT_VERTEX as DEFAULT_VERTEX_BEHAVIOUR,
  VERTEX_ANTHROPIC_VERSION as MOCK_VERTEX_ANTHROPIC_VERSION,
  validateVertexRequest,
  type VertexBehaviour,
} from './src/mock-provider/vertex.js';
export {
  startMockBedrock,
  MOCK_AWS_CREDENTIAL,
  MOCK_BEDROCK_API_KEY,
  type MockBedrock,
  type MockBedrockOptions,
} from './src/mock-bedrock/server.js';
export { verifySigV4, type MockAwsCredential } from './src/mock-bedrock/sigv4.js';
export { MOCK_AWS_PRINCIPAL, type BedrockAction } from './src/mock-bedrock/access.js';
export { validateConverse } from './src/mock-bedrock/validate-converse.js';
export { validateInvokeMessages } from './src/mock-bedrock/invoke.js';
export { invokeEmbedding as mockBedrockEmbedding } from './src/mock-bedrock/embed.js';
export {
  billableCharacters as mockBillableCharacters,
  vertexPredictReply as mockVertexPredict,
} from './src/mock-provider/vertex-predict.js';
