import { type OutputMessage } from '#libs/telemetry';
import { type StreamTranscript } from '../src/adapter.js';
import { list, obj, parseObject, str } from '../src/content-parts.js';
import { append, callDraft, CUT, type Drafts, grow, partsOf } from '../src/transcript-drafts.js';
import { responsesReason } from './facts.js';

/** Chat and completions chunks: `choices[].delta` (or `.text`), one message per choice index. */
export class ChatTranscript implements StreamTranscript {
  private readonly choices = new Map<number, { parts: Drafts; finish: string | null }>();

  push(data: string): void {
    if (data === '[DONE]') return;
    for (const raw of list(parseObject(data)?.choices)) {
      const c = obj(raw);
      const choice = this.choice(typeof c.index === 'number' ? c.index : 0);
      const delta = obj(c.delta);
      append(choice.parts, 'reasoning', 'reasoning', delta.reasoning_content);
      append(choice.parts, 'text', 'text', c.text ?? delta.content);
      append(choice.parts, 'refusal', 'text', delta.refusal);
      for (const t of list(delta.tool_calls)) {
        const tc = obj(t);
        const fn = obj(tc.function);
        const call = callDraft(choice.parts, `call ${String(tc.index ?? 0)}`);
        call.id ??= str(tc.id);
        // The name comes whole on the first delta; some vendors repeat it on every one.
        if (call.name === '') call.name = str(fn.name) ?? '';
        call.args = grow(call.args, fn.arguments);
      }
      const reason = str(c.finish_reason);
      if (reason) choice.finish = reason;
    }
  }

  messages(): OutputMessage[] {
    return [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ role: 'assistant', parts: partsOf(c.parts), finish_reason: c.finish ?? CUT }));
  }

  private choice(index: number): { parts: Drafts; finish: string | null } {
    let c = this.choices.get(index);
    if (!c) {
      c = { parts: new Map(), finish: null };
      this.choices.set(index, c);
    }
    return c;
  }
}

/** Responses events: text and reasoning deltas, function calls by output item; one message. */
export class ResponsesTranscript implements StreamTranscript {
  private readonly parts: Drafts = new Map();
  private finish: string | null = null;

  push(data: string): void {
    const e = parseObject(data);
    if (e === null) return;
    const item = String(e.output_index);
    switch (e.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return append(this.parts, `${item}:${String(e.content_index)}`, 'text', e.delta);
      case 'response.reasoning_summary_text.delta':
        return append(this.parts, `${item}:s${String(e.summary_index)}`, 'reasoning', e.delta);
      case 'response.output_item.added': {
        const added = obj(e.item);
        if (added.type === 'function_call') {
          const call = callDraft(this.parts, item);
          call.id = str(added.call_id);
          call.name = str(added.name) ?? '';
          call.args = str(added.arguments) ?? '';
        } else if (added.type !== 'message' && added.type !== 'reasoning') {
          this.parts.set(item, { kind: 'other', type: str(added.type) ?? 'unknown' });
        }
        return;
      }
      case 'response.function_call_arguments.delta': {
        const call = this.parts.get(item);
        if (call?.kind === 'call') call.args = grow(call.args, e.delta);
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.finish = responsesReason(obj(e.response));
    }
  }

  messages(): OutputMessage[] {
    return [{ role: 'assistant', parts: partsOf(this.parts), finish_reason: this.finish ?? CUT }];
  }
}
