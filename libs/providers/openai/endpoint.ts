/** Paths relative to an OpenAI-style base URL (which already ends in /v1 for OpenAI itself). */
export const OPENAI_PATHS = {
  chatCompletions: '/chat/completions',
  completions: '/completions',
  responses: '/responses',
  embeddings: '/embeddings',
  models: '/models',
} as const;

export function openAIHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}
