import { type CanonicalUsage, usageOfTotal } from '../src/types.js';
import { isObject } from './fields.js';

/**
 * A realtime response's usage (`response.done`'s `response.usage`) -> `CanonicalUsage`.
 *
 * OpenAI counts it as its other APIs do: `input_tokens` is every prompt token, text and audio,
 * cached or not; `input_token_details.cached_tokens` is its cached part, split by
 * `cached_tokens_details` into text, audio (and image) tokens; `input_token_details.audio_tokens`
 * is every prompt audio token, the cached ones included. `output_tokens` holds
 * `output_token_details.audio_tokens`, the speech answered. So: the uncached audio is the audio
 * less its cached part, billed at the audio input price; the cached audio at the cached audio
 * price; the speech at the audio output price (each clamped to its whole by `usageOfTotal`).
 */

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});

export function usageFromRealtime(usage: unknown): CanonicalUsage | null {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number') return null;
  const input = obj(usage.input_token_details);
  const cachedDetails = obj(input.cached_tokens_details);
  const cachedAudio = num(cachedDetails.audio_tokens);
  return usageOfTotal(usage.input_tokens, {
    cacheRead: num(input.cached_tokens),
    audio: Math.max(0, num(input.audio_tokens) - cachedAudio),
    cachedAudio,
    output: num(usage.output_tokens),
    audioOutput: num(obj(usage.output_token_details).audio_tokens),
  });
}
