import { type OutputMessage } from '#libs/telemetry';
import { type StreamTranscript } from '../src/adapter.js';
import { obj, parseObject, str } from '../src/content-parts.js';
import { append, callDraft, CUT, type Drafts, grow, partsOf } from '../src/transcript-drafts.js';

/** ConverseStream events: blocks by `contentBlockIndex`, the stop reason on `messageStop`. */
export class ConverseTranscript implements StreamTranscript {
  private readonly parts: Drafts = new Map();
  private stop: string | null = null;

  push(data: string): void {
    const e = parseObject(data);
    if (e === null) return;
    if (e.contentBlockStart !== undefined) {
      const start = obj(e.contentBlockStart);
      const use = obj(obj(start.start).toolUse);
      const draft = callDraft(this.parts, String(start.contentBlockIndex));
      draft.id = str(use.toolUseId);
      draft.name = str(use.name) ?? '';
    } else if (e.contentBlockDelta !== undefined) {
      const d = obj(e.contentBlockDelta);
      const key = String(d.contentBlockIndex);
      const delta = obj(d.delta);
      if (typeof delta.text === 'string') append(this.parts, key, 'text', delta.text);
      else if (delta.reasoningContent !== undefined)
        append(this.parts, key, 'reasoning', obj(delta.reasoningContent).text);
      else if (delta.toolUse !== undefined) {
        const draft = callDraft(this.parts, key);
        draft.args = grow(draft.args, obj(delta.toolUse).input);
      }
    } else if (e.messageStop !== undefined) {
      this.stop = str(obj(e.messageStop).stopReason) ?? this.stop;
    }
  }

  messages(): OutputMessage[] {
    return [{ role: 'assistant', parts: partsOf(this.parts), finish_reason: this.stop ?? CUT }];
  }
}
