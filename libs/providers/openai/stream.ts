import { type CanonicalUsage } from '../src/types.js';
import { usageFromOpenAI, usageFromResponsesUsage } from './usage.js';

export type OpenAIStreamEvent =
  | { readonly kind: 'done' }
  /** A relayed event that also ends the stream (Responses' terminal `response.*` event). */
  | { readonly kind: 'end'; readonly usage: CanonicalUsage | null }
  /** The trailing chunk with `choices: []` and the usage: stripped unless the client asked for it. */
  | { readonly kind: 'usage'; readonly usage: CanonicalUsage }
  | { readonly kind: 'chunk'; readonly usage: CanonicalUsage | null };

/**
 * Classifies one `data:` payload of an OpenAI chat stream. Only payloads that can carry a usage
 * object are parsed: the common delta chunk costs one substring search.
 */
export function classifyChatStreamData(data: string): OpenAIStreamEvent {
  if (data === '[DONE]') return { kind: 'done' };
  if (!data.includes('"usage":{') && !data.includes('"usage": {')) return { kind: 'chunk', usage: null };
  let parsed: { usage?: unknown; choices?: unknown[] };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return { kind: 'chunk', usage: null };
  }
  const usage = usageFromOpenAI(parsed.usage);
  if (usage && Array.isArray(parsed.choices) && parsed.choices.length === 0) return { kind: 'usage', usage };
  return { kind: 'chunk', usage };
}

const TERMINAL_TYPES = ['"response.completed"', '"response.incomplete"', '"response.failed"'];

/**
 * Classifies one `data:` payload of a Responses API stream. There is no `[DONE]`: the stream is
 * complete once a terminal event arrives, which also carries the usage. Other events cost a few
 * substring searches and are never parsed.
 */
export function classifyResponsesStreamData(data: string): OpenAIStreamEvent {
  if (!TERMINAL_TYPES.some((t) => data.includes(t))) return { kind: 'chunk', usage: null };
  let parsed: { type?: unknown; response?: { usage?: unknown } };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return { kind: 'chunk', usage: null };
  }
  if (typeof parsed.type !== 'string' || !TERMINAL_TYPES.includes(`"${parsed.type}"`)) {
    return { kind: 'chunk', usage: null };
  }
  return { kind: 'end', usage: usageFromResponsesUsage(parsed.response?.usage) };
}
