import { type ResponseFacts, type StreamMeter } from '../src/adapter.js';
import { parseObject } from '../src/content-parts.js';
import { type CanonicalUsage } from '../src/types.js';
import { AnthropicStreamUsage } from './usage.js';

/**
 * Anthropic: `message_start` carries the input tokens and the model, `message_delta` the final
 * output tokens (and, from newer API versions, the input counts again) and the stop reason,
 * `message_stop` ends the stream. Deltas are recognised by their text, never parsed.
 */
export class AnthropicMeter implements StreamMeter {
  completed = false;
  private readonly counts = new AnthropicStreamUsage();
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
