import { type ChatUsage } from '../src/chat.js';
import { hubUsageFrom } from '../src/hub-usage.js';
import { type CanonicalUsage, usageOfTotal } from '../src/types.js';
import { tokenCount as count } from '../src/usage-counts.js';
import { isObject } from './mapping.js';

/**
 * Gemini `usageMetadata`, read Google's way: `promptTokenCount` includes the cached
 * `cachedContentTokenCount`; `toolUsePromptTokenCount` (a tool's results read back in, as a
 * search's) is prompt billed on top of it; `candidatesTokenCount` excludes `thoughtsTokenCount`,
 * which is billed as output. So the prompt is `promptTokenCount + toolUsePromptTokenCount` with
 * the cached tokens inside, the output is `candidatesTokenCount + thoughtsTokenCount` with the
 * thoughts as its reasoning part, and their sum is Google's `totalTokenCount`.
 */

const COUNTS = [
  'promptTokenCount',
  'cachedContentTokenCount',
  'candidatesTokenCount',
  'toolUsePromptTokenCount',
  'thoughtsTokenCount',
] as const;

/** The tokens of one modality in a `ModalityTokenCount` list (`promptTokensDetails`...). */
function modalityTokens(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let sum = 0;
  for (const d of details) if (isObject(d) && d.modality === modality) sum += count(d.tokenCount);
  return sum;
}

/**
 * Prompt audio not read from the cache: Google bills audio input at its own price (about three
 * times text on the Flash models). `promptTokensDetails` splits the whole prompt by modality, the
 * cached part included, and `cacheTokensDetails` splits the cached part, so the difference is what
 * was read fresh; a tool's results read back in are split in `toolUsePromptTokensDetails`.
 */
function uncachedAudio(meta: Record<string, unknown>): number {
  const prompt =
    modalityTokens(meta.promptTokensDetails, 'AUDIO') +
    modalityTokens(meta.toolUsePromptTokensDetails, 'AUDIO');
  return Math.max(0, prompt - modalityTokens(meta.cacheTokensDetails, 'AUDIO'));
}

/** Canonical usage of a `usageMetadata` object, or null when it counts nothing. */
export function geminiCanonicalUsage(meta: unknown): CanonicalUsage | null {
  if (!isObject(meta) || !COUNTS.some((key) => typeof meta[key] === 'number')) return null;
  const thoughts = count(meta.thoughtsTokenCount);
  return usageOfTotal(count(meta.promptTokenCount) + count(meta.toolUsePromptTokenCount), {
    cacheRead: count(meta.cachedContentTokenCount),
    output: count(meta.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
    audio: uncachedAudio(meta),
    // Cached audio is billed at its own cache price; `cacheTokensDetails` splits the cached part.
    cachedAudio: modalityTokens(meta.cacheTokensDetails, 'AUDIO'),
    // Speech answered (the native audio and TTS models): the candidates' audio, billed at the
    // audio output price; thoughts are text.
    audioOutput: modalityTokens(meta.candidatesTokensDetails, 'AUDIO'),
  });
}

/** Usage of a `GenerateContentResponse` body (or one stream event), or null if it reports none. */
export function usageFromGeminiBody(body: unknown): CanonicalUsage | null {
  return isObject(body) ? geminiCanonicalUsage(body.usageMetadata) : null;
}

/**
 * `usageMetadata` -> hub usage: `prompt_tokens` with the cached tokens inside (OpenAI's
 * convention, as Google's), `reasoning_tokens` inside `completion_tokens`. An answer without
 * usage (Google always sends it) counts zeros rather than failing a complete answer.
 */
export function geminiHubUsage(meta: unknown): ChatUsage {
  return hubUsageFrom(geminiCanonicalUsage(meta) ?? usageOfTotal(0, {}));
}
