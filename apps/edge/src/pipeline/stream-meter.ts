import { anthropic, openai, type CanonicalUsage } from '#libs/providers';
import {
  chatStreamFacts,
  parseObject,
  type ResponseFacts,
  responsesStreamFacts,
} from '../telemetry/response-facts.js';

/**
 * Watches one upstream stream, event by event, for its usage and its end, without parsing the
 * common delta events. One meter per stream; the native relay and the translating relay both use
 * the meter of the provider's wire format.
 */
export interface StreamMeter {
  /** One upstream `data:` payload; false when it must not reach the client (the usage chunk it did not ask for). */
  see(data: string): boolean;
  /** The upstream said its stream is complete (`[DONE]`, `message_stop`, `response.completed`...). */
  readonly completed: boolean;
  /** The best usage known so far. */
  readonly usage: CanonicalUsage | null;
  /** Whether `usage` is the upstream's final count (otherwise a cut stream's usage is estimated). */
  readonly usageFinal: boolean;
  /**
   * The model and finish reasons the stream named, for the span attributes. Read from the rare
   * events the meter kept (finishing chunk, terminal event), which may mean parsing them: call it
   * once, at the end, and only when tracing.
   */
  facts(): ResponseFacts | null;
}

export type StreamWireFormat = 'openai-chat' | 'openai-responses' | 'anthropic';

export function streamMeter(format: StreamWireFormat, clientWantsUsage: boolean): StreamMeter {
  switch (format) {
    case 'openai-chat':
      return new OpenAIMeter(openai.classifyChatStreamData, clientWantsUsage);
    case 'openai-responses':
      return new OpenAIMeter(openai.classifyResponsesStreamData, true);
    case 'anthropic':
      return new AnthropicMeter();
  }
}

const FINISH = '"finish_reason":"';
const QUOTE = 0x22;
/** Finishing chunks kept for their facts: one per choice, bounded for a vendor that repeats it. */
const MAX_FINISHING = 16;

/** Chat and completions (usage on the last chunk, then `[DONE]`) and Responses (usage on the terminal event). */
class OpenAIMeter implements StreamMeter {
  private done = false;
  /** A choice finished: some OpenAI-compatible vendors end there without `[DONE]`. */
  private finished = false;
  /** Chat's finishing chunks and Responses' terminal event, kept unparsed until `facts()`. */
  private readonly finishing: string[] = [];
  private terminal: string | null = null;
  usage: CanonicalUsage | null = null;
  usageFinal = false;

  constructor(
    private readonly classify: (data: string) => openai.OpenAIStreamEvent,
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

/**
 * Anthropic: `message_start` carries the input tokens and the model, `message_delta` the final
 * output tokens (and, from newer API versions, the input counts again) and the stop reason,
 * `message_stop` ends the stream.
 */
class AnthropicMeter implements StreamMeter {
  completed = false;
  private readonly counts = new anthropic.AnthropicStreamUsage();
  private model: string | null = null;
  private stopReason: string | null = null;

  get usage(): CanonicalUsage | null {
    return this.counts.usage;
  }

  get usageFinal(): boolean {
    return this.counts.final;
  }

  see(data: string): boolean {
    if (data.includes('"type":"message_stop"')) this.completed = true;
    else if (data.includes('"type":"message_start"')) this.start(data);
    else if (data.includes('"type":"message_delta"')) this.delta(data);
    return true;
  }

  facts(): ResponseFacts | null {
    if (this.model === null && this.stopReason === null) return null;
    return { model: this.model, finishReasons: this.stopReason === null ? [] : [this.stopReason] };
  }

  private start(data: string): void {
    const parsed = parseObject(data) as { message?: { model?: unknown; usage?: unknown } } | null;
    const model = parsed?.message?.model;
    if (typeof model === 'string') this.model = model;
    this.counts.start(parsed?.message?.usage);
  }

  private delta(data: string): void {
    const parsed = parseObject(data) as { delta?: { stop_reason?: unknown }; usage?: unknown } | null;
    const reason = parsed?.delta?.stop_reason;
    if (typeof reason === 'string') this.stopReason = reason;
    this.counts.delta(parsed?.usage);
  }
}
