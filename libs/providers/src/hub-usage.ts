import { type ChatUsage } from './chat.js';
import { type CanonicalUsage } from './types.js';

/**
 * Canonical usage -> the hub's (OpenAI's chat usage with the cache writes as extension fields):
 * `prompt_tokens` holds the cache's reads and writes, `completion_tokens` the reasoning. One
 * mapping for every vendor whose usage is read into the canonical form first; a part the vendor
 * did not report is absent, not zero.
 */
export function hubUsageFrom(u: CanonicalUsage): ChatUsage {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: {
      cached_tokens: u.cachedTokens,
      ...(u.cacheWrite5mTokens > 0 && { cache_write_5m_tokens: u.cacheWrite5mTokens }),
      ...(u.cacheWrite1hTokens > 0 && { cache_write_1h_tokens: u.cacheWrite1hTokens }),
    },
    ...(u.reasoningTokens > 0 && { completion_tokens_details: { reasoning_tokens: u.reasoningTokens } }),
  };
}
