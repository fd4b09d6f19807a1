import { type MessagePart, type OutputMessage } from '#libs/telemetry';
import {
  type ResponseFacts,
  type StreamMeter,
  type StreamTranscript,
  type WireFormat,
} from '../src/adapter.js';
import {
  blob,
  list,
  obj,
  type Obj,
  other,
  parseObject,
  reasoning,
  str,
  text,
  toolCall,
  toolResponse,
} from '../src/content-parts.js';
import { CUT, type Draft, type Drafts, grow, partsOf } from '../src/transcript-drafts.js';
import { type CanonicalUsage } from '../src/types.js';
import { usageFromGeminiBody } from './usage.js';

/**
 * Gemini's wire: a `GenerateContentResponse` body, and `alt=sse` streams of such objects holding
 * only the new parts, with no end marker (the last event carries `finishReason` and the final
 * `usageMetadata`) and errors as `{"error": {code, message, status}}` events.
 */

/** Finishing events kept for their facts: one per candidate, bounded for a vendor that repeats it. */
const MAX_FINISHING = 16;
const ERROR_EVENT = /^\s*\{\s*"error"\s*:/;

/**
 * Usage rides on every event, cumulative: the latest wins. Only events naming `usageMetadata` or
 * `finishReason` are kept, and none is parsed until its usage or facts are asked for.
 */
class GeminiMeter implements StreamMeter {
  completed = false;
  private usageEvent: string | null = null;
  private parsed: { readonly event: string; readonly usage: CanonicalUsage | null } | null = null;
  private readonly finishing: string[] = [];

  see(data: string): boolean {
    if (data.includes('"usageMetadata"')) this.usageEvent = data;
    if (data.includes('"finishReason"')) {
      this.completed = true;
      if (this.finishing.length < MAX_FINISHING) this.finishing.push(data);
    }
    // Usage is part of the content events: nothing is ever hidden from the client.
    return true;
  }

  get usage(): CanonicalUsage | null {
    if (this.usageEvent === null) return null;
    if (this.parsed?.event !== this.usageEvent) {
      this.parsed = { event: this.usageEvent, usage: usageFromGeminiBody(parseObject(this.usageEvent)) };
    }
    return this.parsed.usage;
  }

  get usageFinal(): boolean {
    return this.completed && this.usage !== null;
  }

  facts(): ResponseFacts | null {
    // Every event names the model; the finishing ones name a reason per candidate.
    const reasons = this.finishing.flatMap((event) => finishReasons(obj(parseObject(event))));
    const last = this.usageEvent ?? this.finishing.at(-1);
    const model = last === undefined ? null : str(obj(parseObject(last)).modelVersion);
    return model === null && reasons.length === 0 ? null : { model, finishReasons: reasons };
  }
}

const finishReasons = (body: Obj): string[] =>
  list(body.candidates).flatMap((c) => {
    const reason = str(obj(c).finishReason);
    return reason ? [reason] : [];
  });

/** Each candidate's parts by content order: consecutive texts (and thoughts) grow one part. */
class GeminiTranscript implements StreamTranscript {
  private readonly candidates = new Map<
    number,
    { parts: Drafts; last: string | null; finish: string | null }
  >();

  push(data: string): void {
    list(parseObject(data)?.candidates).forEach((raw, position) => {
      const c = obj(raw);
      const candidate = this.candidate(typeof c.index === 'number' ? c.index : position);
      for (const p of list(obj(c.content).parts)) {
        const part = obj(p);
        const kind = part.functionCall !== undefined ? 'call' : part.thought === true ? 'reasoning' : 'text';
        if (kind !== 'call' && (typeof part.text !== 'string' || part.text === '')) continue;
        const last = candidate.last === null ? undefined : candidate.parts.get(candidate.last);
        if (kind !== 'call' && last?.kind === kind) {
          last.text = grow(last.text, part.text);
        } else {
          candidate.last = String(candidate.parts.size);
          candidate.parts.set(candidate.last, draftOf(part, kind));
        }
      }
      candidate.finish = str(c.finishReason) ?? candidate.finish;
    });
  }

  messages(): OutputMessage[] {
    return [...this.candidates.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ role: 'assistant', parts: partsOf(c.parts), finish_reason: c.finish ?? CUT }));
  }

  private candidate(index: number): { parts: Drafts; last: string | null; finish: string | null } {
    let c = this.candidates.get(index);
    if (!c) {
      c = { parts: new Map(), last: null, finish: null };
      this.candidates.set(index, c);
    }
    return c;
  }
}

function draftOf(part: Obj, kind: 'call' | 'reasoning' | 'text'): Draft {
  if (kind !== 'call') return { kind, text: str(part.text) ?? '' };
  const call = obj(part.functionCall);
  return { kind: 'call', id: str(call.id), name: str(call.name) ?? '', args: '', input: call.args ?? {} };
}

/** A Gemini part in the conventions' shapes; null for one that holds nothing (a lone signature). */
function partOf(raw: unknown): MessagePart | null {
  const p = obj(raw);
  if (typeof p.text === 'string') {
    if (p.text === '') return null;
    return p.thought === true ? reasoning(p.text) : text(p.text);
  }
  if (p.functionCall !== undefined) {
    const call = obj(p.functionCall);
    return toolCall(call.id, call.name, call.args ?? {});
  }
  if (p.functionResponse !== undefined) {
    const response = obj(p.functionResponse);
    return toolResponse(response.id, response.response);
  }
  if (p.inlineData !== undefined) {
    const data = obj(p.inlineData);
    return blob(data.mimeType, data.data, 'image');
  }
  if (p.fileData !== undefined) {
    const file = obj(p.fileData);
    const kind = str(file.mimeType)?.split('/', 1)[0];
    const modality = kind === 'audio' || kind === 'video' ? kind : 'image';
    return { type: 'uri', modality, mime_type: str(file.mimeType), uri: str(file.fileUri) ?? '' };
  }
  const type = Object.keys(p).find((k) => k !== 'thought' && k !== 'thoughtSignature');
  return type === undefined ? null : other(type);
}

/** What a body answered: one message per candidate; null for an answer without candidates (a blocked prompt). */
function outputMessages(body: Obj): OutputMessage[] | null {
  const candidates = list(body.candidates);
  if (candidates.length === 0) return null;
  return candidates.map((raw) => {
    const c = obj(raw);
    return {
      role: 'assistant',
      parts: list(obj(c.content).parts).flatMap((p) => partOf(p) ?? []),
      finish_reason: str(c.finishReason) ?? CUT,
    };
  });
}

/** The generated text of one event: texts and thoughts, function call names and arguments. */
function outputText(data: string): string {
  let out = '';
  for (const c of list(parseObject(data)?.candidates)) {
    for (const raw of list(obj(obj(c).content).parts)) {
      const p = obj(raw);
      out += str(p.text) ?? '';
      if (p.functionCall !== undefined) {
        const call = obj(p.functionCall);
        out += (str(call.name) ?? '') + JSON.stringify(call.args ?? {});
      }
    }
  }
  return out;
}

export const geminiWire: WireFormat = {
  name: 'gemini',
  usageOfBody: usageFromGeminiBody,
  meter: () => new GeminiMeter(),
  outputText,
  isErrorEvent: (data) => ERROR_EVENT.test(data),
  // Google's own in-stream error: the status object of its error bodies, as an event.
  failEvent: (message) =>
    `data: ${JSON.stringify({ error: { code: 500, message, status: 'INTERNAL' } })}\n\n`,
  facts: (body) => ({
    model: str(body.modelVersion),
    finishReasons: finishReasons(body),
  }),
  outputMessages,
  transcript: () => new GeminiTranscript(),
};
