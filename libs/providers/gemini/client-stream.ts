import {
  type ChatChunk,
  type ChatDelta,
  type ChatFinishReason,
  type ChatToolCallDelta,
  type ChatUsage,
} from '../src/chat.js';
import { type ClientContext, type ClientStream, type SseFrame } from '../src/translation.js';
import { type Json } from './client-fields.js';
import {
  candidateOf,
  functionCallPart,
  geminiFinishReasonOf,
  geminiUsageOf,
  includeThoughtsOf,
} from './client-response.js';

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** One candidate's state: the calls still being streamed, how it ended. */
interface Candidate {
  readonly calls: Map<number, PendingCall>;
  finish: ChatFinishReason | null;
  refused: boolean;
}

/**
 * Hub chunks -> Google's `alt=sse` stream: each event a GenerateContentResponse holding only the
 * parts new since the last one (no event name, no end marker). Text and thoughts go out chunk by
 * chunk, as Google streams them; a function call goes out whole, as Google sends it, once its
 * arguments are complete: when other output follows it, or at the end. The last event carries
 * the finish reasons and `usageMetadata` (the hub's usage comes after its finish reason, so the
 * last event waits for `end()`).
 */
export function geminiStreamFromHub(ctx: ClientContext): ClientStream {
  const thoughts = includeThoughtsOf(ctx.request);
  const candidates = new Map<number, Candidate>();
  let usage: ChatUsage | null = null;
  let finished = false;

  const event = (parts: Json[], extra: Json = {}): SseFrame => ({
    data: JSON.stringify({ candidates: parts, ...extra, modelVersion: ctx.model, responseId: ctx.requestId }),
  });

  const candidate = (index: number): Candidate => {
    let c = candidates.get(index);
    if (!c) {
      c = { calls: new Map(), finish: null, refused: false };
      candidates.set(index, c);
    }
    return c;
  };

  /** The calls streamed so far, whole, in the order the provider began them. */
  const flush = (c: Candidate, choice: number): Json[] => {
    const parts = [...c.calls.entries()].map(([k, call]) =>
      functionCallPart(call.id || `call_${ctx.requestId}_${choice}_${k}`, call.name, call.args),
    );
    c.calls.clear();
    return parts;
  };

  const accumulate = (c: Candidate, tc: ChatToolCallDelta): void => {
    const call = c.calls.get(tc.index) ?? { id: '', name: '', args: '' };
    if (tc.id) call.id = tc.id;
    if (tc.function?.name) call.name += tc.function.name;
    if (tc.function?.arguments) call.args += tc.function.arguments;
    c.calls.set(tc.index, call);
  };

  const newParts = (c: Candidate, d: ChatDelta): Json[] => {
    const parts: Json[] = [];
    if (thoughts && d.reasoning_content) parts.push({ text: d.reasoning_content, thought: true });
    if (d.content) parts.push({ text: d.content });
    if (d.refusal) {
      c.refused = true;
      parts.push({ text: d.refusal });
    }
    return parts;
  };

  return {
    push(chunk: ChatChunk): SseFrame[] {
      if (finished) return [];
      if (chunk.usage) usage = chunk.usage;
      const out: Json[] = [];
      for (const choice of chunk.choices ?? []) {
        const c = candidate(choice.index);
        const parts = newParts(c, choice.delta ?? {});
        // Output after a call means the call is complete: it goes first, whole.
        if (parts.length > 0 && c.calls.size > 0) parts.unshift(...flush(c, choice.index));
        for (const tc of choice.delta?.tool_calls ?? []) accumulate(c, tc);
        if (choice.finish_reason) c.finish = choice.finish_reason;
        if (parts.length > 0) out.push({ content: { role: 'model', parts }, index: choice.index });
      }
      return out.length > 0 ? [event(out)] : [];
    },
    end(): SseFrame[] {
      if (finished) return [];
      finished = true;
      if (candidates.size === 0) candidate(0);
      const last = [...candidates.entries()].map(([index, c]) => {
        const reason = geminiFinishReasonOf(c.finish, c.refused ? { refusal: 'refused' } : undefined);
        return candidateOf(flush(c, index), reason, index);
      });
      return [event(last, usage ? { usageMetadata: geminiUsageOf(usage) } : {})];
    },
    fail(error: { readonly type: string; readonly message: string }): SseFrame[] {
      if (finished) return [];
      finished = true;
      return [{ data: JSON.stringify({ error: { code: 500, message: error.message, status: 'INTERNAL' } }) }];
    },
  };
}
