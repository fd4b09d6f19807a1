import { type ResponseFacts, type StreamMeter } from '../src/adapter.js';
import { type CanonicalUsage } from '../src/types.js';
import { chatStreamFacts, responsesStreamFacts } from './facts.js';
import { type OpenAIStreamEvent } from './stream.js';

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
