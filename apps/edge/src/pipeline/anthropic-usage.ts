import { type CanonicalUsage } from '#libs/providers';

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Anthropic counts cache reads and cache writes apart from `input_tokens`; the canonical input is
 * all the prompt tokens (as OpenAI's `prompt_tokens`), with the cache reads as its cached part.
 */
export function usageFromAnthropic(usage: unknown): CanonicalUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as AnthropicUsage;
  if (typeof u.input_tokens !== 'number' && typeof u.output_tokens !== 'number') return null;
  const cacheRead = u.cache_read_input_tokens ?? 0;
  return {
    inputTokens: (u.input_tokens ?? 0) + cacheRead + (u.cache_creation_input_tokens ?? 0),
    outputTokens: u.output_tokens ?? 0,
    cachedTokens: cacheRead,
  };
}

/** Usage of a non-stream Messages body, or null if it carries none. */
export function usageFromMessage(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromAnthropic((body as { usage?: unknown }).usage);
}
