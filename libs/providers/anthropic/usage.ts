import { type ChatUsage } from '../src/chat.js';
import { hubUsageFrom } from '../src/hub-usage.js';
import { disjointUsageOf, tokenCount as count } from '../src/usage-counts.js';
import { type CanonicalUsage, usageOf, usageOfTotal } from '../src/types.js';
import { isObject, upstreamError } from './wire.js';

/**
 * Anthropic usage, both ways. Anthropic counts the prompt in three disjoint parts: `input_tokens`
 * (uncached), `cache_read_input_tokens` and `cache_creation_input_tokens`, the last split by TTL
 * in `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`. The hub and the
 * canonical usage count OpenAI's way: one prompt total with the cached and written parts inside.
 */

/**
 * The cache writes by TTL. The total (`cache_creation_input_tokens`) is what was written; the
 * split says at which price. Without a split every write is a 5-minute one (Anthropic's default
 * TTL, and all that API versions before the split knew).
 */
function cacheWrites(usage: Record<string, unknown>): { cacheWrite5m: number; cacheWrite1h: number } {
  const split = isObject(usage.cache_creation) ? usage.cache_creation : {};
  const total =
    usage.cache_creation_input_tokens === undefined || usage.cache_creation_input_tokens === null
      ? count(split.ephemeral_5m_input_tokens) + count(split.ephemeral_1h_input_tokens)
      : count(usage.cache_creation_input_tokens);
  const cacheWrite1h = Math.min(count(split.ephemeral_1h_input_tokens), total);
  return { cacheWrite5m: total - cacheWrite1h, cacheWrite1h };
}

function thinkingTokens(usage: Record<string, unknown>): number {
  const details = usage.output_tokens_details;
  return isObject(details) ? count(details.thinking_tokens) : 0;
}

/** Searches of the web search server tool, billed per search apart from tokens. */
function webSearches(usage: Record<string, unknown>): number {
  const tools = usage.server_tool_use;
  return isObject(tools) ? count(tools.web_search_requests) : 0;
}

/** Canonical usage of an Anthropic `usage` object, or null when it counts nothing. */
export function canonicalUsageOf(usage: unknown): CanonicalUsage | null {
  return disjointUsageOf(usage, 'input_tokens', 'output_tokens', (u) => ({
    uncached: count(u.input_tokens),
    cacheRead: count(u.cache_read_input_tokens),
    ...cacheWrites(u),
    output: count(u.output_tokens),
    reasoning: thinkingTokens(u),
    webSearches: webSearches(u),
  }));
}

/** Usage of a non-stream Messages body, or null if it carries none. */
export function usageFromMessage(body: unknown): CanonicalUsage | null {
  return isObject(body) ? canonicalUsageOf(body.usage) : null;
}

/**
 * Anthropic usage -> hub usage: `prompt_tokens` is the sum of the three parts, `cached_tokens` the
 * reads, the writes go in the hub's extension fields. Thinking tokens are part of Anthropic's
 * `output_tokens`, as reasoning tokens are part of OpenAI's `completion_tokens`.
 */
export function hubUsageOf(usage: unknown): ChatUsage {
  if (!isObject(usage)) throw upstreamError('Anthropic returned no usage object.');
  return hubUsageFrom(canonicalUsageOf(usage) ?? usageOf({}));
}

/** Anthropic's usage object as a Messages client reads it. */
export interface AnthropicClientUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: {
    readonly ephemeral_5m_input_tokens: number;
    readonly ephemeral_1h_input_tokens: number;
  };
  readonly output_tokens: number;
}

/** Canonical usage of a hub usage (the inverse of `hubUsageOf` for every part). */
export function canonicalOfHub(usage: ChatUsage | null | undefined): CanonicalUsage {
  const details = usage?.prompt_tokens_details;
  return usageOfTotal(count(usage?.prompt_tokens), {
    cacheRead: count(details?.cached_tokens),
    cacheWrite5m: count(details?.cache_write_5m_tokens),
    cacheWrite1h: count(details?.cache_write_1h_tokens),
    output: count(usage?.completion_tokens),
    reasoning: count(usage?.completion_tokens_details?.reasoning_tokens),
  });
}

/**
 * Hub usage -> Anthropic usage: `input_tokens` is the prompt without its cached and written parts,
 * which go back to their own fields (an OpenAI provider's `cached_tokens` become
 * `cache_read_input_tokens`).
 */
export function anthropicUsageOf(usage: ChatUsage | null | undefined): AnthropicClientUsage {
  const u = canonicalOfHub(usage);
  return {
    input_tokens: u.inputTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens,
    cache_creation_input_tokens: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
    cache_read_input_tokens: u.cachedTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: u.cacheWrite5mTokens,
      ephemeral_1h_input_tokens: u.cacheWrite1hTokens,
    },
    output_tokens: u.outputTokens,
  };
}

/**
 * The usage of an Anthropic stream as it arrives: `message_start` carries the input counts (and a
 * placeholder output count), `message_delta` the final output count and, from newer API versions,
 * the input counts again. Fields of a later event replace those of an earlier one.
 */
export class AnthropicStreamUsage {
  private raw: Record<string, unknown> = {};
  /** Whether `message_delta` gave its (final) count. */
  final = false;

  start(usage: unknown): void {
    if (!isObject(usage)) return;
    // message_start's output count is a placeholder: only message_delta's is real.
    const { output_tokens: _placeholder, ...input } = usage;
    this.raw = { ...input };
  }

  delta(usage: unknown): void {
    if (!isObject(usage)) return;
    for (const [key, value] of Object.entries(usage))
      if (value !== null && value !== undefined) this.raw[key] = value;
    this.final = true;
  }

  /** The best usage known so far, or null before any count. */
  get usage(): CanonicalUsage | null {
    if (Object.keys(this.raw).length === 0) return null;
    return canonicalUsageOf(this.final ? this.raw : { ...this.raw, output_tokens: 0 });
  }
}
