import { type ResponseFacts, type StreamMeter } from '../src/adapter.js';
import { type CanonicalUsage } from '../src/types.js';
import { chatStreamFacts, responsesStreamFacts } from './facts.js';
import { usageFromOpenAI, usageFromResponsesUsage } from './usage.js';

/** What the meter needs to know of one `data:` payload. */
export type OpenAIStreamEvent =
  | { readonly kind: 'done' }
  /** A relayed event that also ends the stream (Responses' terminal `response.*` event). */
  | { readonly kind: 'end'; readonly usage: CanonicalUsage | null }
  /** The trailing chunk with `choices: []` and the usage: stripped unless the client asked for it. */
  | { readonly kind: 'usage'; readonly usage: CanonicalUsage }
  | { readonly kind: 'chunk'; readonly usage: CanonicalUsage | null };

/**
 * The answers that carry nothing of their own, one object each for every event: a stream
 * classifies each of its events, and a fresh `{ kind: 'chunk' }` per delta was garbage the edge
 * made for every chunk it relayed. Frozen: a caller can never change what the next event gets.
 */
const DONE: OpenAIStreamEvent = Object.freeze({ kind: 'done' });
const CHUNK: OpenAIStreamEvent = Object.freeze({ kind: 'chunk', usage: null });

/**
 * Classifies one `data:` payload of an OpenAI chat stream. Only payloads that can carry a usage
 * object are parsed: the common delta chunk costs one substring search.
 */
export function classifyChatStreamData(data: string): OpenAIStreamEvent {
  if (data === '[DONE]') return DONE;
  if (!data.includes('"usage":{') && !data.includes('"usage": {')) return CHUNK;
  let parsed: { usage?: unknown; choices?: unknown[] };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return CHUNK;
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
  if (!TERMINAL_TYPES.some((t) => data.includes(t))) return CHUNK;
  let parsed: { type?: unknown; response?: { usage?: unknown } };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return CHUNK;
  }
  if (typeof parsed.type !== 'string' || !TERMINAL_TYPES.includes(`"${parsed.type}"`)) {
    return CHUNK;
  }
  return { kind: 'end', usage: usageFromResponsesUsage(parsed.response?.usage) };
}

const FINISH = '"finish_reason":"';
const QUOTE = 0x22;
/** Finishing chunks kept for their facts: one per choice, bounded for a vendor that repeats it. */
const MAX_FINISHING = 16;

/**
 * Chat and completions (usage on the last chunk, then `[DONE]`) and Responses (usage on the
 * terminal event). Only the rare events are parsed: `classify` finds them by their text.
 */
export class OpenAIMeter implements StreamMeter {
  private done = false;
  /** A choice finished: some OpenAI-compatible vendors end there without `[DONE]`. */
  private finished = false;
  /** Chat's finishing chunks and Responses' terminal event, kept unparsed until `facts()`. */
  private readonly finishing: string[] = [];
  private terminal: string | null = null;
  usage: CanonicalUsage | null = null;
  usageFinal = false;

  constructor(
    private readonly classify: (data: string) => OpenAIStreamEvent,
    private readonly clientWantsUsage: boolean,
  ) {}

  get completed(): boolean {
    return this.done || this.finished;
  }

  see(data: string): boolean {
    const event = this.classify(data);
    if (event.kind === 'done') {
      this.done = true;
      return true;
    }
    const finish = data.indexOf(FINISH);
    if (finish >= 0) {
      this.finished = true;
      // With n > 1 every choice finishes on its own chunk; an empty reason is no finish.
      if (data.charCodeAt(finish + FINISH.length) !== QUOTE && this.finishing.length < MAX_FINISHING)
        this.finishing.push(data);
    }
    if (event.usage) {
      // OpenAI-compatible vendors put cumulative usage on content chunks too: the latest one wins.
      this.usage = event.usage;
      this.usageFinal = true;
    }
    if (event.kind === 'end') {
      this.done = true;
      this.terminal = data;
    }
    return event.kind !== 'usage' || this.clientWantsUsage;
  }

  facts(): ResponseFacts | null {
    return this.terminal !== null ? responsesStreamFacts(this.terminal) : chatStreamFacts(this.finishing);
  }
}
