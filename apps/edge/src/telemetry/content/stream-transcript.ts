import { CONTENT_MAX_BYTES, type MessagePart, type OutputMessage } from '#libs/telemetry';
import { type StreamWireFormat } from '../../pipeline/stream-meter.js';
import { parseObject, responsesReason } from '../response-facts.js';
import { list, obj, other, parsedArguments, reasoning, str, text } from './parts.js';

/**
 * What a stream produced, put back together from its deltas for content capture: text, reasoning
 * and tool-call arguments. Built only while capture is on; the stream meter never parses a delta,
 * this parses each upstream event once more. Reads the upstream's wire format, so native and
 * translated streams alike.
 */
export interface StreamTranscript {
  /** One upstream `data:` payload, in order. */
  push(data: string): void;
  /** The output so far: complete after the stream's end, what arrived when it was cut. */
  messages(): OutputMessage[];
}

export function streamTranscript(format: StreamWireFormat): StreamTranscript {
  switch (format) {
    case 'openai-chat':
      return new ChatTranscript();
    case 'openai-responses':
      return new ResponsesTranscript();
    case 'anthropic':
      return new AnthropicTranscript();
  }
}

/** A part being assembled, keyed by where the wire says it goes. */
type Draft =
  | { kind: 'text' | 'reasoning'; text: string }
  | { kind: 'call'; id: string | null; name: string; args: string; input: unknown }
  | { kind: 'other'; type: string };
type Drafts = Map<string, Draft>;

/** A choice (or the one message) that never said why it ended was cut. */
const CUT = 'error';

/** Chat and completions chunks: `choices[].delta` (or `.text`), one message per choice index. */
class ChatTranscript implements StreamTranscript {
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
class ResponsesTranscript implements StreamTranscript {
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

/** Anthropic events: content blocks by index, their deltas, the stop reason on message_delta. */
class AnthropicTranscript implements StreamTranscript {
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

function append(parts: Drafts, key: string, kind: 'text' | 'reasoning', piece: unknown): void {
  if (typeof piece !== 'string' || piece === '') return;
  const draft = parts.get(key);
  if (draft?.kind === kind) draft.text = grow(draft.text, piece);
  else parts.set(key, { kind, text: piece });
}

/**
 * `text` and the next piece, until it is as long as the bound: the capture is cut there anyway,
 * so a long generation costs the transcript at most that much memory per part (each UTF-16 unit
 * is at least one byte, so the cut still shows).
 */
function grow(text: string, piece: unknown): string {
  return typeof piece === 'string' && text.length < CONTENT_MAX_BYTES ? text + piece : text;
}

function callDraft(parts: Drafts, key: string): Extract<Draft, { kind: 'call' }> {
  const draft = parts.get(key);
  if (draft?.kind === 'call') return draft;
  const fresh: Extract<Draft, { kind: 'call' }> = {
    kind: 'call',
    id: null,
    name: '',
    args: '',
    input: undefined,
  };
  parts.set(key, fresh);
  return fresh;
}

function partsOf(drafts: Drafts): MessagePart[] {
  return [...drafts.values()].map((d): MessagePart => {
    switch (d.kind) {
      case 'text':
        return text(d.text);
      case 'reasoning':
        return reasoning(d.text);
      case 'call':
        // Anthropic's arguments come as JSON deltas after an empty `input`; a cut stream's stay text.
        return {
          type: 'tool_call',
          id: d.id,
          name: d.name,
          arguments: d.args === '' ? (d.input ?? {}) : parsedArguments(d.args),
        };
      case 'other':
        return other(d.type);
    }
  });
}
