import { type CanonicalUsage } from '../src/types.js';
import { usageFromOpenAI } from './response.js';

export type ChatStreamEvent =
  | { readonly kind: 'done' }
  /** The trailing chunk with `choices: []` and the usage: stripped unless the client asked for it. */
  | { readonly kind: 'usage'; readonly usage: CanonicalUsage }
  | { readonly kind: 'chunk'; readonly usage: CanonicalUsage | null };

/**
 * Classifies one `data:` payload of an OpenAI chat stream. Only payloads that can carry a usage
 * object are parsed: the common delta chunk costs one substring search.
 */
export function classifyChatStreamData(data: string): ChatStreamEvent {
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
