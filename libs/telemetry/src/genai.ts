/**
 * GenAI semantic-convention values for what the gateway does. `gen_ai.operation.name` per client
 * route; `gen_ai.provider.name` per provider type (the vendor), where an `openai-compatible`
 * provider is named by its `vendor` (deepseek, groq) or else by its configured id (vllm, ...),
 * since its type says nothing of it.
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

/** The conventions' well-known names where they differ from the provider type. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { gemini: 'gcp.gemini' };

export function genAiOperation(route: string): string {
  return OPERATIONS[route] ?? 'chat';
}

export function genAiProviderName(providerType: string, providerId: string, vendor?: string): string {
  if (providerType !== 'openai-compatible') return PROVIDER_NAMES[providerType] ?? providerType;
  return vendor !== undefined && vendor !== 'generic' ? vendor : providerId;
}
