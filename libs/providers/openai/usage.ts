import { type ChatUsage } from '../src/chat.js';
import { type CanonicalUsage, usageOfTotal } from '../src/types.js';
import { isObject } from './fields.js';

/**
 * OpenAI usage, both ways. `prompt_tokens` (Responses: `input_tokens`) includes its cached part
 * `cached_tokens`, billed at a discount; models that report cache writes put them beside it as
 * `cache_write_tokens` (OpenAI's newer models, Azure, OpenRouter), also inside the total.
 * `reasoning_tokens` are part of `completion_tokens`.
 */

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});

/** Canonical usage of a chat, completions or embeddings `usage` object, or null. */
export function usageFromOpenAI(usage: unknown): CanonicalUsage | null {
  if (!isObject(usage) || typeof usage.prompt_tokens !== 'number') return null;
  const details = obj(usage.prompt_tokens_details);
  const completion = obj(usage.completion_tokens_details);
  return usageOfTotal(usage.prompt_tokens, {
    // DeepSeek names its cache reads `prompt_cache_hit_tokens`.
    cacheRead: num(details.cached_tokens ?? usage.prompt_cache_hit_tokens),
    cacheWrite5m: num(details.cache_write_tokens),
    output: num(usage.completion_tokens),
    reasoning: num(completion.reasoning_tokens),
    // The audio models' prompt audio, billed at their audio price; OpenAI does not say how much
    // of the cached part is audio, so the audio is taken as uncached (clamped to it).
    audio: num(details.audio_tokens),
    // The speech they answer with, a part of `completion_tokens` billed at their audio output price.
    audioOutput: num(completion.audio_tokens),
    // Perplexity counts the searches an answer ran (Sonar Deep Research bills them per search).
    webSearches: num(usage.num_search_queries),
  });
}

/** Canonical usage of a Responses `usage` object, or null. */
export function usageFromResponsesUsage(usage: unknown): CanonicalUsage | null {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number') return null;
  const details = obj(usage.input_tokens_details);
  return usageOfTotal(usage.input_tokens, {
    cacheRead: num(details.cached_tokens),
    cacheWrite5m: num(details.cache_write_tokens),
    output: num(usage.output_tokens),
    reasoning: num(obj(usage.output_tokens_details).reasoning_tokens),
  });
}

/** Cache writes of a hub usage (its extension fields), all TTLs together: OpenAI has one field. */
function hubCacheWrites(usage: ChatUsage): number {
  const d = usage.prompt_tokens_details;
  return num(d?.cache_write_5m_tokens) + num(d?.cache_write_1h_tokens);
}

/**
 * Hub usage -> what a chat or completions client reads: the hub's cache-write extension fields
 * become OpenAI's one `cache_write_tokens` (present only when there were writes); the rest, the
 * totals included, is already in OpenAI's convention.
 */
export function clientChatUsage(usage: ChatUsage): ChatUsage {
  const details = usage.prompt_tokens_details;
  if (details?.cache_write_5m_tokens === undefined && details?.cache_write_1h_tokens === undefined)
    return usage;
  const { cache_write_5m_tokens: _5m, cache_write_1h_tokens: _1h, ...openai } = details;
  const writes = hubCacheWrites(usage);
  return {
    ...usage,
    prompt_tokens_details: { ...openai, ...(writes > 0 && { cache_write_tokens: writes }) },
  } as ChatUsage;
}

/** Hub usage -> a Responses `usage` object (input totals include the cached and written parts). */
export function responsesUsage(usage: ChatUsage | undefined | null): Record<string, unknown> | null {
  if (!usage) return null;
  const writes = hubCacheWrites(usage);
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      ...(writes > 0 && { cache_write_tokens: writes }),
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/**
 * A vendor's chat usage -> hub usage: DeepSeek's `prompt_cache_hit_tokens` become
 * `cached_tokens`, OpenAI's `cache_write_tokens` the hub's 5-minute writes (OpenAI sells one TTL).
 */
export function hubUsageOfOpenAI(raw: unknown): ChatUsage | undefined {
  if (!isObject(raw) || typeof raw.prompt_tokens !== 'number') return undefined;
  const usage = raw as unknown as ChatUsage & { prompt_cache_hit_tokens?: unknown };
  const completion = typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  const { cache_write_tokens: writes, ...details } = obj(usage.prompt_tokens_details);
  const cached = details.cached_tokens ?? usage.prompt_cache_hit_tokens;
  const hasDetails = isObject(usage.prompt_tokens_details) || typeof cached === 'number';
  return {
    ...usage,
    completion_tokens: completion,
    total_tokens:
      typeof usage.total_tokens === 'number' ? usage.total_tokens : usage.prompt_tokens + completion,
    ...(hasDetails && {
      prompt_tokens_details: {
        ...details,
        ...(typeof cached === 'number' && { cached_tokens: cached }),
        ...(num(writes) > 0 && { cache_write_5m_tokens: num(writes) }),
      },
    }),
  };
}

/** Usage of a non-stream chat completion body, or null if it carries none. */
export function usageFromChatCompletion(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromOpenAI((body as { usage?: unknown }).usage);
}

/** Usage of a non-stream Responses API body, or null if it carries none. */
export function usageFromResponse(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromResponsesUsage((body as { usage?: unknown }).usage);
}
