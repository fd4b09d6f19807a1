/**
 * Token usage in the gateway's one convention, whatever the vendor's: `inputTokens` is every
 * prompt token (OpenAI's `prompt_tokens` convention), and the cache reads and cache writes are
 * parts of it; `reasoningTokens` is a part of `outputTokens`. Vendors map into it inside their
 * folder through `usageOf`, which builds it from disjoint parts, so no part can come out negative
 * whichever convention the vendor counted in (docs/quota.md, "Usage components").
 */
export interface CanonicalUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Prompt tokens read from the vendor's cache. */
  readonly cachedTokens: number;
  /** Prompt tokens written to the cache for 5 minutes (Anthropic's default TTL; OpenAI's writes). */
  readonly cacheWrite5mTokens: number;
  /** Prompt tokens written to the cache for 1 hour (Anthropic's `ttl: "1h"`). */
  readonly cacheWrite1hTokens: number;
  /** Output tokens spent reasoning (thinking); already counted in `outputTokens`. */
  readonly reasoningTokens: number;
  /**
   * Prompt tokens of audio neither read from nor written to a cache: a part of the uncached input,
   * which vendors bill at an audio price. Present only when the vendor reported some, so a usage
   * without audio is the same object as before audio was counted.
   */
  readonly audioInputTokens?: number;
  /**
   * Prompt tokens of audio read from the cache: a part of `cachedTokens`, which vendors bill at a
   * cached audio price (Gemini). Present only when the vendor reported some.
   */
  readonly cachedAudioInputTokens?: number;
  /**
   * Output tokens of audio (speech the model answered with): a part of `outputTokens`, which
   * vendors bill at an audio output price. Present only when the vendor reported some.
   */
  readonly audioOutputTokens?: number;
  /** Web searches the vendor ran for the request and bills per search; present only when reported. */
  readonly webSearchRequests?: number;
  /**
   * Prompt characters the vendor bills per character (Vertex's text embedding models: its
   * `billableCharacterCount`, white space not counted); present only when reported.
   */
  readonly inputCharacters?: number;
}

/** The disjoint components of a usage: each is priced on its own (docs/quota.md). */
export interface UsageParts {
  /** Prompt tokens neither read from nor written to a cache. */
  readonly uncached: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
  /** Part of `output`; clamped to it. */
  readonly reasoning: number;
  /** Part of `uncached`; clamped to it. */
  readonly audio: number;
  /** Part of `cacheRead`; clamped to it. */
  readonly cachedAudio: number;
  /** Part of `output`; clamped to it. */
  readonly audioOutput: number;
  /** Not tokens: a count of searches, billed per search. */
  readonly webSearches: number;
  /** Not tokens: the prompt characters a vendor bills per character. */
  readonly characters: number;
}

type Counted = { -readonly [K in keyof CanonicalUsage]: CanonicalUsage[K] };

const count = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** The canonical usage of disjoint parts (negative, fractional or missing counts are read as 0). */
export function usageOf(parts: Partial<UsageParts>): CanonicalUsage {
  const cacheRead = count(parts.cacheRead ?? 0);
  const cacheWrite5m = count(parts.cacheWrite5m ?? 0);
  const cacheWrite1h = count(parts.cacheWrite1h ?? 0);
  const output = count(parts.output ?? 0);
  const uncached = count(parts.uncached ?? 0);
  const usage: Counted = {
    inputTokens: uncached + cacheRead + cacheWrite5m + cacheWrite1h,
    outputTokens: output,
    cachedTokens: cacheRead,
    cacheWrite5mTokens: cacheWrite5m,
    cacheWrite1hTokens: cacheWrite1h,
    reasoningTokens: Math.min(count(parts.reasoning ?? 0), output),
  };
  // Assigned, not spread: this runs for every answer (see usageOfTotal).
  const audio = Math.min(count(parts.audio ?? 0), uncached);
  if (audio > 0) usage.audioInputTokens = audio;
  const cachedAudio = Math.min(count(parts.cachedAudio ?? 0), cacheRead);
  if (cachedAudio > 0) usage.cachedAudioInputTokens = cachedAudio;
  const audioOutput = Math.min(count(parts.audioOutput ?? 0), output);
  if (audioOutput > 0) usage.audioOutputTokens = audioOutput;
  const searches = count(parts.webSearches ?? 0);
  if (searches > 0) usage.webSearchRequests = searches;
  const characters = count(parts.characters ?? 0);
  if (characters > 0) usage.inputCharacters = characters;
  return usage;
}

/**
 * A usage counted OpenAI's way (a prompt total that includes its cached and written parts): the
 * parts are clamped in order (reads, then 1 h writes, then 5 m writes) so that a vendor reporting
 * more cached tokens than prompt tokens yields 0 uncached tokens, never a negative count.
 */
export function usageOfTotal(prompt: number, parts: Omit<Partial<UsageParts>, 'uncached'>): CanonicalUsage {
  // Written out, without a closure or a spread of `parts`: this runs for every answer, and the
  // spread version cost about 4 µs a call on the bench machine.
  let left = count(prompt);
  const cacheRead = Math.min(count(parts.cacheRead ?? 0), left);
  left -= cacheRead;
  const cacheWrite1h = Math.min(count(parts.cacheWrite1h ?? 0), left);
  left -= cacheWrite1h;
  const cacheWrite5m = Math.min(count(parts.cacheWrite5m ?? 0), left);
  left -= cacheWrite5m;
  return usageOf({
    uncached: left,
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    output: parts.output ?? 0,
    reasoning: parts.reasoning ?? 0,
    audio: parts.audio ?? 0,
    cachedAudio: parts.cachedAudio ?? 0,
    audioOutput: parts.audioOutput ?? 0,
    webSearches: parts.webSearches ?? 0,
    characters: parts.characters ?? 0,
  });
}

/** Prompt tokens neither read from nor written to a cache. */
export function uncachedInputTokens(u: CanonicalUsage): number {
  return Math.max(0, u.inputTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens);
}

/** A JSON object body as the client sent it; unknown fields are kept untouched. */
export type JsonObject = Record<string, unknown>;
