import { openai, type CanonicalUsage } from '#libs/providers';
import { usageFromAnthropic } from './anthropic-usage.js';

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

/** Chat and completions (usage on the last chunk, then `[DONE]`) and Responses (usage on the terminal event). */
class OpenAIMeter implements StreamMeter {
  private done = false;
  /** A choice finished: some OpenAI-compatible vendors end there without `[DONE]`. */
  private finished = false;
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
    if (!this.finished && data.includes('"finish_reason":"')) this.finished = true;
    if (event.usage) {
      // OpenAI-compatible vendors put cumulative usage on content chunks too: the latest one wins.
      this.usage = event.usage;
      this.usageFinal = true;
    }
    if (event.kind === 'end') this.done = true;
    return event.kind !== 'usage' || this.clientWantsUsage;
  }
}

/**
 * Anthropic: `message_start` carries the input tokens, `message_delta` the final output tokens
 * (and, from newer API versions, the input counts again), `message_stop` ends the stream.
 */
class AnthropicMeter implements StreamMeter {
  completed = false;
  usage: CanonicalUsage | null = null;
  usageFinal = false;

  see(data: string): boolean {
    if (data.includes('"type":"message_stop"')) this.completed = true;
    else if (data.includes('"type":"message_start"')) this.read(data, 'message', false);
    else if (data.includes('"type":"message_delta"')) this.read(data, null, true);
    return true;
  }

  private read(data: string, under: 'message' | null, final: boolean): void {
    let parsed: { usage?: Record<string, unknown>; message?: { usage?: Record<string, unknown> } };
    try {
      parsed = JSON.parse(data) as typeof parsed;
    } catch {
      return;
    }
    const raw = under === 'message' ? parsed.message?.usage : parsed.usage;
    const usage = usageFromAnthropic(raw);
    if (!usage) return;
    const hasInput = typeof raw?.input_tokens === 'number';
    this.usage = {
      inputTokens: hasInput || !this.usage ? usage.inputTokens : this.usage.inputTokens,
      cachedTokens: hasInput || !this.usage ? usage.cachedTokens : this.usage.cachedTokens,
      // message_start reports a placeholder output count; only message_delta's is real.
      outputTokens: final ? usage.outputTokens : 0,
    };
    if (final) this.usageFinal = true;
  }
}
