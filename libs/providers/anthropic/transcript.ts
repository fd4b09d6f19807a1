import { type OutputMessage } from '#libs/telemetry';
import { type StreamTranscript } from '../src/adapter.js';
import { obj, parseObject, str } from '../src/content-parts.js';
import { CUT, type Drafts, grow, partsOf } from '../src/transcript-drafts.js';

/** Anthropic events: content blocks by index, their deltas, the stop reason on message_delta. */
export class AnthropicTranscript implements StreamTranscript {
  private readonly parts: Drafts = new Map();
  private stop: string | null = null;

  push(data: string): void {
    const e = parseObject(data);
    if (e === null) return;
    const index = String(e.index);
    if (e.type === 'content_block_start') {
      const b = obj(e.content_block);
      if (b.type === 'text') this.parts.set(index, { kind: 'text', text: str(b.text) ?? '' });
      else if (b.type === 'thinking')
        this.parts.set(index, { kind: 'reasoning', text: str(b.thinking) ?? '' });
      else if (b.type === 'tool_use')
        this.parts.set(index, {
          kind: 'call',
          id: str(b.id),
          name: str(b.name) ?? '',
          args: '',
          input: b.input,
        });
      else this.parts.set(index, { kind: 'other', type: str(b.type) ?? 'unknown' });
    } else if (e.type === 'content_block_delta') {
      const d = obj(e.delta);
      const draft = this.parts.get(index);
      if (draft?.kind === 'text' && d.type === 'text_delta') draft.text = grow(draft.text, d.text);
      else if (draft?.kind === 'reasoning' && d.type === 'thinking_delta')
        draft.text = grow(draft.text, d.thinking);
      else if (draft?.kind === 'call' && d.type === 'input_json_delta')
        draft.args = grow(draft.args, d.partial_json);
    } else if (e.type === 'message_delta') {
      this.stop = str(obj(e.delta).stop_reason) ?? this.stop;
    }
  }

  messages(): OutputMessage[] {
    return [{ role: 'assistant', parts: partsOf(this.parts), finish_reason: this.stop ?? CUT }];
  }
}
