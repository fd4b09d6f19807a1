import { type CanonicalUsage } from '../src/types.js';

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number;
}

/** Maps an OpenAI `usage` object (chat, completions, embeddings) to canonical usage. */
export function usageFromOpenAI(usage: unknown): CanonicalUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as OpenAIUsage;
  if (typeof u.prompt_tokens !== 'number') return null;
  return {
    inputTokens: u.prompt_tokens,
    outputTokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : 0,
    cachedTokens: u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? 0,
  };
}

/** Usage of a non-stream chat completion body, or null if it carries none. */
export function usageFromChatCompletion(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromOpenAI((body as { usage?: unknown }).usage);
}

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
}

/** Maps a Responses API `usage` object to canonical usage. */
export function usageFromResponsesUsage(usage: unknown): CanonicalUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as ResponsesUsage;
  if (typeof u.input_tokens !== 'number') return null;
  return {
    inputTokens: u.input_tokens,
    outputTokens: typeof u.output_tokens === 'number' ? u.output_tokens : 0,
    cachedTokens: u.input_tokens_details?.cached_tokens ?? 0,
  };
}

/** Usage of a non-stream Responses API body, or null if it carries none. */
export function usageFromResponse(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromResponsesUsage((body as { usage?: unknown }).usage);
}
