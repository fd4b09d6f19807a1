/**
 * GenAI semantic-convention values for what the gateway does. `gen_ai.operation.name` per client
 * route; `gen_ai.provider.name` is each provider type's descriptor's (libs/providers).
 */
const OPERATIONS: Readonly<Record<string, string>> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'text_completion',
  '/v1/embeddings': 'embeddings',
  '/v1/responses': 'chat',
  '/v1/messages': 'chat',
  '/v1beta/models/{model}:generateContent': 'generate_content',
  // Not a well-known value of the conventions, which name none for counting: ours, not `chat`.
  '/v1/messages/count_tokens': 'count_tokens',
  '/v1beta/models/{model}:countTokens': 'count_tokens',
};

export function genAiOperation(route: string): string {
  return OPERATIONS[route] ?? 'chat';
}
