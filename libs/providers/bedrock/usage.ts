import { type ChatUsage } from '../src/chat.js';
import { hubUsageFrom } from '../src/hub-usage.js';
import { type CanonicalUsage } from '../src/types.js';
import { disjointUsageOf, tokenCount as count } from '../src/usage-counts.js';
import { isObject, upstreamError } from './wire.js';

/**
 * Converse usage, both ways. Bedrock counts the prompt in three disjoint parts, as Anthropic
 * does: `inputTokens` (neither read from nor written to the cache), `cacheReadInputTokens` and
 * `cacheWriteInputTokens`; `totalTokens` is all three plus `outputTokens`. Bedrock's cache points
 * live 5 minutes, so every write is a 5-minute write. Reasoning tokens are part of
 * `outputTokens` and not reported apart.
 */

/** Canonical usage of a Converse `usage` object, or null when it counts nothing. */
export function canonicalUsageOf(usage: unknown): CanonicalUsage | null {
  return disjointUsageOf(usage, 'inputTokens', 'outputTokens', (u) => ({
    uncached: count(u.inputTokens),
    cacheRead: count(u.cacheReadInputTokens),
    cacheWrite5m: count(u.cacheWriteInputTokens),
    output: count(u.outputTokens),
  }));
}

/** Usage of a non-stream Converse body, or null if it carries none. */
export function usageFromConverse(body: unknown): CanonicalUsage | null {
  return isObject(body) ? canonicalUsageOf(body.usage) : null;
}

/** Converse usage -> hub usage: one prompt total with the cache's reads and writes inside. */
export function hubUsageOf(usage: unknown): ChatUsage {
  const u = canonicalUsageOf(usage);
  if (u === null) throw upstreamError('Bedrock returned no usage object.');
  return hubUsageFrom(u);
}
