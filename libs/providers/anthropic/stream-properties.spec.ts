import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type ChatChunk, type ChatDelta, type ChatFinishReason, type ChatUsage } from '../src/chat.js';
import { type ClientContext, type SseEvent } from '../src/translation.js';
import { anthropicProvider, anthropicUsageOf, messagesClient, stopReasonOf } from './index.js';
import { readAnthropicEvents } from './spec-support.js';

type Json = Record<string, unknown>;

const ctx: ClientContext = { requestId: 'req_s', model: 'm', created: 1, includeUsage: true, request: {} };
const RUNS = { numRuns: 300 };
const piece = fc.string({ maxLength: 6 });
const word = fc.string({ minLength: 1, maxLength: 12 });

/** What an OpenAI-format provider may stream, one step at a time. */
type Step =
  | { readonly kind: 'reasoning' | 'content'; readonly text: string }
  | { readonly kind: 'sign'; readonly extra: string; readonly signature: string }
  | { readonly kind: 'tool'; readonly name: string; readonly args: readonly string[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('reasoning' as const, 'content' as const), text: piece }),
  fc.record({ kind: fc.constant('sign' as const), extra: piece, signature: word }),
  fc.record({ kind: fc.constant('tool' as const), name: word, args: fc.array(piece, { maxLength: 4 }) }),
);
const usage: fc.Arbitrary<ChatUsage> = fc
  .record({
    prompt: fc.nat(100000),
    cached: fc.nat(100000),
    w5m: fc.nat(100000),
    w1h: fc.nat(100000),
    completion: fc.nat(100000),
  })
  .map(({ prompt, cached, w5m, w1h, completion }) => ({
    prompt_tokens: prompt + cached + w5m + w1h,
    completion_tokens: completion,
    total_tokens: prompt + cached + w5m + w1h + completion,
    prompt_tokens_details: { cached_tokens: cached, cache_write_5m_tokens: w5m, cache_write_1h_tokens: w1h },
  }));

const chunk = (delta: ChatDelta, finish: ChatFinishReason | null = null): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'x',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The chunks for some steps, and the content blocks Anthropic's format should end up with. */
function scenario(steps: readonly Step[]): { chunks: ChatChunk[]; expected: Json[] } {
  const chunks: ChatChunk[] = [chunk({ role: 'assistant', content: '' })];
  const expected: Json[] = [];
  let open = null as Json | null;
  let calls = 0;
  for (const s of steps) {
    if (s.kind !== 'sign' && s.kind !== 'tool') {
      chunks.push(chunk(s.kind === 'content' ? { content: s.text } : { reasoning_content: s.text }));
      if (s.text === '') continue;
      const type = s.kind === 'content' ? 'text' : 'thinking';
      if (open?.type !== type) {
        open = type === 'text' ? { type, text: '' } : { type, thinking: '', signature: '' };
        expected.push(open);
      }
      open[type === 'text' ? 'text' : 'thinking'] += s.text;
    } else if (s.kind === 'sign') {
      const streamed = open?.type === 'thinking' ? String(open.thinking) : '';
      chunks.push(
        chunk({
          thinking_blocks: [{ type: 'thinking', thinking: streamed + s.extra, signature: s.signature }],
        }),
      );
      if (open?.type !== 'thinking')
        expected.push({ type: 'thinking', thinking: s.extra, signature: s.signature });
      else Object.assign(open, { thinking: streamed + s.extra, signature: s.signature });
      open = null;
    } else if (s.kind === 'tool') {
      const index = calls++;
      const id = `call_${index}`;
      chunks.push(
        chunk({ tool_calls: [{ index, id, type: 'function', function: { name: s.name, arguments: '' } }] }),
      );
      for (const a of s.args) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: a } }] }));
      open = { type: 'tool_use', id, name: s.name, input: s.args.join('') };
      expected.push(open);
    }
  }
  return { chunks, expected };
}

describe('messagesClient.streamFromHub on random chunk sequences (fast-check)', () => {
  it('emits a well-formed Anthropic sequence whose deltas add up to the streamed content and usage', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 12 }),
        fc.constantFrom<ChatFinishReason>('stop', 'length', 'tool_calls', 'content_filter'),
        usage,
        (steps, finish, u) => {
          const { chunks, expected } = scenario(steps);
          chunks.push(chunk({}, finish), { ...chunk({}), choices: [], usage: u });
          const stream = messagesClient.streamFromHub(ctx);
          const message = readAnthropicEvents([...chunks.flatMap((c) => stream.push(c)), ...stream.end()]);
          expect(message.content).toEqual(expected);
          expect(message.stopReason).toBe(stopReasonOf(finish));
          expect(message.usage).toEqual(anthropicUsageOf(u));
        },
      ),
      RUNS,
    );
  });
});

/** A realistic Anthropic answer: thinking, then text, then tool calls. */
const answer = fc.record({
  thinking: fc.option(fc.record({ thinking: word, signature: word }), { nil: null }),
  text: fc.option(word, { nil: null }),
  tools: fc.array(
    fc.record({
      name: word,
      input: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string(), fc.integer())),
    }),
    { maxLength: 3 },
  ),
  stop: fc.constantFrom('end_turn', 'max_tokens', 'tool_use'),
  input: fc.nat(100000),
  cacheRead: fc.nat(100000),
  write5m: fc.nat(100000),
  write1h: fc.nat(100000),
  output: fc.nat(100000),
  size: fc.integer({ min: 1, max: 5 }),
  ping: fc.boolean(),
});

const pieces = (s: string, size: number): string[] => s.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
const event = (type: string, fields: Json = {}): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});

describe('Anthropic provider stream -> hub -> Anthropic client stream (fast-check)', () => {
  it('reproduces the thinking, text, tool calls, stop reason and usage', () => {
    fc.assert(
      fc.property(answer, (a) => {
        const blocks: Json[] = [];
        if (a.thinking) blocks.push({ type: 'thinking', ...a.thinking });
        if (a.text !== null) blocks.push({ type: 'text', text: a.text });
        a.tools.forEach((t, i) =>
          blocks.push({ type: 'tool_use', id: `toolu_${i}`, name: t.name, input: t.input }),
        );
        const usage = {
          input_tokens: a.input,
          cache_read_input_tokens: a.cacheRead,
          cache_creation_input_tokens: a.write5m + a.write1h,
          cache_creation: { ephemeral_5m_input_tokens: a.write5m, ephemeral_1h_input_tokens: a.write1h },
          output_tokens: 1,
        };
        const events = [event('message_start', { message: { id: 'msg_1', model: 'c', content: [], usage } })];
        blocks.forEach((b, index) => {
          const start =
            b.type === 'tool_use'
              ? { ...b, input: {} }
              : b.type === 'text'
                ? { type: 'text', text: '' }
                : { type: 'thinking', thinking: '', signature: '' };
          events.push(event('content_block_start', { index, content_block: start }));
          if (a.ping && index === 0) events.push(event('ping'));
          const deltas =
            b.type === 'text'
              ? pieces(String(b.text), a.size).map((text) => ({ type: 'text_delta', text }))
              : b.type === 'thinking'
                ? [
                    ...pieces(String(b.thinking), a.size).map((thinking) => ({
                      type: 'thinking_delta',
                      thinking,
                    })),
                    { type: 'signature_delta', signature: b.signature },
                  ]
                : pieces(JSON.stringify(b.input), a.size).map((partial_json) => ({
                    type: 'input_json_delta',
                    partial_json,
                  }));
          for (const delta of deltas) events.push(event('content_block_delta', { index, delta }));
          events.push(event('content_block_stop', { index }));
        });
        events.push(
          event('message_delta', {
            delta: { stop_reason: a.stop, stop_sequence: null },
            usage: { output_tokens: a.output },
          }),
        );
        events.push(event('message_stop'));

        const provider = anthropicProvider.streamToHub();
        const client = messagesClient.streamFromHub(ctx);
        const hubChunks = [...events.flatMap((e) => provider.push(e)), ...provider.end()];
        const message = readAnthropicEvents([...hubChunks.flatMap((c) => client.push(c)), ...client.end()]);
        const content = message.content.map((b) =>
          b.type === 'tool_use' ? { ...b, input: JSON.parse(String(b.input)) as unknown } : b,
        );
        expect(content).toEqual(blocks);
        expect(message.stopReason).toBe(a.stop);
        expect(message.usage).toEqual({
          input_tokens: a.input,
          cache_creation_input_tokens: a.write5m + a.write1h,
          cache_read_input_tokens: a.cacheRead,
          cache_creation: { ephemeral_5m_input_tokens: a.write5m, ephemeral_1h_input_tokens: a.write1h },
          output_tokens: a.output,
        });
      }),
      RUNS,
    );
  });
});
