import { type ChatChunk, type ChatDelta, type ChatFinishReason } from '../src/chat.js';
import { streamedObject } from '../src/translation-errors.js';
import { type SseEvent, type StreamTransform } from '../src/translation.js';
import {
  candidatesOf,
  finishReasonOf,
  isObject,
  type Json,
  partsOf,
  pieceOf,
  responseIdOf,
  upstreamError,
} from './mapping.js';
import { geminiHubUsage } from './usage.js';

interface ChoiceState {
  /** Function calls so far: the next call's index (and its `call_<n>` id when Google gives none). */
  calls: number;
  finished: boolean;
}

/**
 * Gemini `alt=sse` events -> hub chunks. Each event is a whole `GenerateContentResponse` holding
 * only the new parts; there is no end marker: the last event carries the `finishReason` and the
 * final `usageMetadata`. So a choice's first event also yields its role chunk, each part its own
 * chunk (a function call arrives whole: one delta with its arguments), a finish reason its
 * finishing chunk, and `end()` the usage chunk (`choices: []`) from the latest `usageMetadata`.
 *
 * Failures throw `GatewayError('upstream_error')`: an `{"error": ...}` event (Google's message
 * kept) or an unparseable one from `push`, a stream that ends before any finish reason from `end`.
 */
export function geminiStreamToHub(): StreamTransform<SseEvent, ChatChunk> {
  let id: string | null = null;
  let model = '';
  let usage: unknown = undefined;
  const choices = new Map<number, ChoiceState>();

  const chunk = (index: number, delta: ChatDelta, finish: ChatFinishReason | null = null): ChatChunk => ({
    id: id ?? '',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index, delta, finish_reason: finish }],
  });

  const choice = (index: number, out: ChatChunk[]): ChoiceState => {
    let state = choices.get(index);
    if (!state) {
      state = { calls: 0, finished: false };
      choices.set(index, state);
      out.push(chunk(index, { role: 'assistant', content: '' }));
    }
    return state;
  };

  const onCandidate = (index: number, candidate: Json, out: ChatChunk[]): void => {
    const state = choice(index, out);
    for (const part of partsOf(candidate)) {
      const piece = pieceOf(part, state.calls);
      if (piece?.kind === 'text') out.push(chunk(index, { content: piece.text }));
      else if (piece?.kind === 'reasoning') out.push(chunk(index, { reasoning_content: piece.text }));
      else if (piece?.kind === 'call') {
        const { id: callId, type, function: fn } = piece.call;
        out.push(chunk(index, { tool_calls: [{ index: state.calls++, id: callId, type, function: fn }] }));
      }
    }
    const finish = finishReasonOf(candidate.finishReason, state.calls > 0);
    if (finish) {
      state.finished = true;
      out.push(chunk(index, {}, finish));
    }
  };

  return {
    push(event: SseEvent): ChatChunk[] {
      const data = parse(event.data);
      if (isObject(data.error)) {
        const message = data.error.message;
        throw upstreamError(typeof message === 'string' && message !== '' ? message : 'Gemini stream error.');
      }
      id ??= responseIdOf(data, event.data);
      if (typeof data.modelVersion === 'string') model = data.modelVersion;
      if (data.usageMetadata !== undefined) usage = data.usageMetadata;
      const out: ChatChunk[] = [];
      const candidates = candidatesOf(data);
      for (const { index, candidate } of candidates) onCandidate(index, candidate, out);
      if (candidates.length === 0 && isObject(data.promptFeedback) && data.promptFeedback.blockReason) {
        // A blocked prompt: no candidate will come.
        choice(0, out).finished = true;
        out.push(chunk(0, {}, 'content_filter'));
      }
      return out;
    },
    end(): ChatChunk[] {
      if (![...choices.values()].some((c) => c.finished)) {
        throw upstreamError('The Gemini stream ended before a finish reason.');
      }
      return [
        {
          id: id ?? '',
          object: 'chat.completion.chunk',
          created: 0,
          model,
          choices: [],
          usage: geminiHubUsage(usage),
        },
      ];
    },
  };
}

function parse(data: string): Json {
  return streamedObject(data, 'Gemini');
}
