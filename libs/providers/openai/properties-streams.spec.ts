import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type ClientContext, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { chunksOf, completionOf, script } from './arbitraries.js';
import { chatClient, completionsClient, responsesClient } from './index.js';
import { sseEvents, sseText } from './spec-support.js';

const ctx = (includeUsage: boolean): ClientContext => ({
  requestId: 'prop',
  model: 'm',
  created: 1,
  includeUsage,
  request: { model: 'm', input: 'x' },
});

const events = (frames: readonly SseFrame[]) => frames.map((f) => JSON.parse(f.data) as JsonObject);
const joined = (list: readonly JsonObject[], type: string, key: string, itemId?: unknown): string =>
  list
    .filter((e) => e.type === type && (itemId === undefined || e.item_id === itemId))
    .map((e) => e[key] as string)
    .join('');

describe('property: responses streams', () => {
  it('are well formed, agree with the non-stream response, and their deltas add up', () => {
    fc.assert(
      fc.property(script, (s) => {
        const stream = responsesClient.streamFromHub(ctx(true));
        const frames = [...chunksOf(s).flatMap((c) => stream.push(c)), ...stream.end()];
        const list = events(frames);
        expect(frames.every((f, i) => f.event === list[i]!.type)).toBe(true);
        expect(list.map((e) => e.sequence_number)).toEqual(list.map((_, i) => i));
        expect(list.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
        const terminal = list.at(-1)!;
        expect(terminal.type).toBe(s.finish === 'length' ? 'response.incomplete' : 'response.completed');
        const response = terminal.response as JsonObject;
        const output = response.output as JsonObject[];
        // Every item added is done, in order, and the stream's final response is the non-stream one.
        const added = list.filter((e) => e.type === 'response.output_item.added').map((e) => e.output_index);
        const done = list.filter((e) => e.type === 'response.output_item.done').map((e) => e.output_index);
        expect(added).toEqual(output.map((_, i) => i));
        expect(done).toEqual(added);
        const whole = responsesClient.fromHub(completionOf(s), ctx(true));
        expect(output).toEqual(whole.output);
        expect(response.usage).toEqual(whole.usage);
        expect(response.status).toEqual(whole.status);
        // Deltas concatenate to the final text, summary and arguments.
        expect(joined(list, 'response.output_text.delta', 'delta')).toBe(s.text.join(''));
        expect(joined(list, 'response.reasoning_summary_text.delta', 'delta')).toBe(s.reasoning.join(''));
        for (const item of output.filter((o) => o.type === 'function_call')) {
          expect(joined(list, 'response.function_call_arguments.delta', 'delta', item.id)).toBe(
            item.arguments,
          );
        }
      }),
    );
  });

  it('survive the OpenAI SSE framing: every frame parses back to its event', () => {
    fc.assert(
      fc.property(script, (s) => {
        const stream = responsesClient.streamFromHub(ctx(true));
        const frames = [...chunksOf(s).flatMap((c) => stream.push(c)), ...stream.end()];
        expect(sseEvents(sseText(frames))).toEqual(frames.map((f) => ({ event: f.event, data: f.data })));
      }),
    );
  });
});

describe('property: chat and completions streams', () => {
  it('chat: text passes through in order, [DONE] last, usage only when asked and exact', () => {
    fc.assert(
      fc.property(script, fc.boolean(), (s, includeUsage) => {
        const stream = chatClient.streamFromHub(ctx(includeUsage));
        const frames = [...chunksOf(s).flatMap((c) => stream.push(c)), ...stream.end()];
        expect(frames.at(-1)).toEqual({ data: '[DONE]' });
        const chunks = events(frames.slice(0, -1));
        const text = chunks.flatMap((c) =>
          (c.choices as { delta: { content?: string } }[]).map((ch) => ch.delta.content ?? ''),
        );
        expect(text.join('')).toBe(s.text.join(''));
        const usages = chunks.filter((c) => 'usage' in c && c.usage !== null);
        expect(usages.map((c) => c.usage)).toEqual(includeUsage ? [completionOf(s).usage] : []);
        expect(chunks.every((c) => 'usage' in c)).toBe(includeUsage);
      }),
    );
  });

  it('completions: text chunks add up to the answer, finish once, usage only when asked', () => {
    fc.assert(
      fc.property(script, fc.boolean(), (s, includeUsage) => {
        const stream = completionsClient.streamFromHub(ctx(includeUsage));
        const frames = [...chunksOf(s).flatMap((c) => stream.push(c)), ...stream.end()];
        expect(frames.at(-1)).toEqual({ data: '[DONE]' });
        const chunks = events(frames.slice(0, -1));
        expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
        const choices = chunks.flatMap((c) => c.choices as { text: string; finish_reason: string | null }[]);
        expect(choices.map((c) => c.text).join('')).toBe(s.text.join(''));
        expect(choices.filter((c) => c.finish_reason !== null).map((c) => c.finish_reason)).toEqual([
          s.finish === 'tool_calls' ? 'stop' : s.finish,
        ]);
        expect(chunks.filter((c) => (c.choices as unknown[]).length === 0).length).toBe(includeUsage ? 1 : 0);
      }),
    );
  });
});
