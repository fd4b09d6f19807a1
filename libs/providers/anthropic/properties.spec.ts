import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type ChatMessage, type ChatRequest } from '../src/chat.js';
import { anthropicProvider, messagesClient } from './index.js';

type Json = Record<string, unknown>;

const RUNS = { numRuns: 200 };

const text = fc.string({ minLength: 1, maxLength: 20 });
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const input = fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), {
  maxKeys: 4,
});
const toolName = fc.stringMatching(/^[a-z][a-z_]{0,10}$/);
const tools = fc.uniqueArray(toolName, { maxLength: 3 }).map((names) =>
  names.map((name) => ({
    name,
    description: `Tool ${name}`,
    input_schema: { type: 'object', properties: { q: { type: 'string' } } },
  })),
);

/** One exchange: a user turn, then an assistant turn whose tool calls the next user turn answers. */
const exchange = fc.record({
  user: text,
  thinking: fc.option(fc.record({ thinking: text, signature: text }), { nil: null }),
  reply: fc.option(text, { nil: null }),
  calls: fc.array(input, { maxLength: 3 }),
});

/** A valid Anthropic request, in the order of blocks the hub preserves. */
const messagesRequest = fc
  .record({
    exchanges: fc.array(exchange, { maxLength: 4 }),
    last: text,
    system: fc.option(text, { nil: undefined }),
    max_tokens: fc.integer({ min: 1, max: 64000 }),
    temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }), {
      nil: undefined,
    }),
    top_p: fc.option(fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
    stop_sequences: fc.option(fc.array(text, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    tools,
    choice: fc.constantFrom('auto', 'any', 'tool', 'none', null),
    serial: fc.boolean(),
    user: fc.option(text, { nil: undefined }),
    stream: fc.option(fc.constant(true), { nil: undefined }),
  })
  .map((r) => {
    const messages: Json[] = [];
    const userTurn = (said: string): void => {
      const results =
        messages.length > 0 ? (messages.at(-1)!.content as Json[]).filter((b) => b.type === 'tool_use') : [];
      messages.push({
        role: 'user',
        content: [
          ...results.map((b, k) => ({ type: 'tool_result', tool_use_id: b.id, content: `result ${k}` })),
          { type: 'text', text: said },
        ],
      });
    };
    r.exchanges.forEach((x, i) => {
      userTurn(x.user);
      const blocks: Json[] = [];
      if (x.thinking) blocks.push({ type: 'thinking', ...x.thinking });
      // Every exchange has an assistant turn: consecutive user turns would merge, by design.
      if (x.reply || (x.calls.length === 0 && !x.thinking))
        blocks.push({ type: 'text', text: x.reply ?? 'ok' });
      x.calls.forEach((args, k) =>
        blocks.push({ type: 'tool_use', id: `toolu_${i}_${k}`, name: 'f', input: args }),
      );
      messages.push({ role: 'assistant', content: blocks });
    });
    // The user speaks last: a final assistant turn is a prefill, rejected cross-format.
    userTurn(r.last);
    const body: Json = { model: 'claude-x', max_tokens: r.max_tokens, messages };
    if (r.system !== undefined) body.system = r.system;
    if (r.temperature !== undefined) body.temperature = r.temperature;
    if (r.top_p !== undefined) body.top_p = r.top_p;
    if (r.stop_sequences) body.stop_sequences = r.stop_sequences;
    if (r.user !== undefined) body.metadata = { user_id: r.user };
    if (r.stream) body.stream = true;
    if (r.tools.length > 0) {
      body.tools = r.tools;
      const serial = r.serial && r.choice !== 'none' ? { disable_parallel_tool_use: true } : {};
      if (r.choice === 'tool') body.tool_choice = { type: 'tool', name: r.tools[0]!.name, ...serial };
      else if (r.choice) body.tool_choice = { type: r.choice, ...serial };
    }
    return body;
  });

/** A hub request Anthropic can express, in the message order the round trip preserves. */
const hubRequest = fc
  .record({
    system: fc.option(text, { nil: undefined }),
    turns: fc.array(
      fc.record({
        user: text,
        reply: fc.option(text, { nil: null }),
        calls: fc.array(input, { maxLength: 2 }),
      }),
      { maxLength: 4 },
    ),
    max_tokens: fc.integer({ min: 1, max: 64000 }),
    last: text,
    temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }), {
      nil: undefined,
    }),
    stop: fc.option(fc.array(text, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    tools: fc.uniqueArray(toolName, { maxLength: 3 }),
    choice: fc.constantFrom('auto', 'required', 'none', 'named', null),
    serial: fc.boolean(),
    user: fc.option(text, { nil: undefined }),
  })
  .map((r) => {
    const messages: ChatMessage[] = r.system !== undefined ? [{ role: 'system', content: r.system }] : [];
    r.turns.forEach((t, i) => {
      messages.push({ role: 'user', content: [{ type: 'text', text: t.user }] });
      const calls = t.calls.map((args, k) => ({
        id: `call_${i}_${k}`,
        type: 'function' as const,
        function: { name: 'f', arguments: JSON.stringify(args) },
      }));
      // Turns alternate: consecutive user messages are merged on the way to Anthropic, by design.
      messages.push({
        role: 'assistant',
        content: t.reply ?? (calls.length === 0 ? 'ok' : null),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      calls.forEach((c) => messages.push({ role: 'tool', tool_call_id: c.id, content: `result of ${c.id}` }));
    });
    messages.push({ role: 'user', content: [{ type: 'text', text: r.last }] });
    const req: Record<string, unknown> = { model: 'gpt-x', messages, max_tokens: r.max_tokens };
    if (r.temperature !== undefined) req.temperature = r.temperature;
    if (r.stop) req.stop = r.stop;
    if (r.user !== undefined) req.user = r.user;
    if (r.tools.length > 0) {
      req.tools = r.tools.map((name) => ({
        type: 'function',
        function: { name, description: `Tool ${name}`, parameters: { type: 'object', properties: {} } },
      }));
      if (r.choice === 'named') req.tool_choice = { type: 'function', function: { name: r.tools[0] } };
      else if (r.choice) req.tool_choice = r.choice;
      if (r.serial && r.choice && r.choice !== 'none') req.parallel_tool_calls = false;
    }
    return req as unknown as ChatRequest;
  });

/** Anthropic accepts a string wherever it accepts one text block: compare in block form. */
/** Strings as one text block, and without the cache marks the provider adds (cache-breakpoints.ts). */
function blocksForm(body: Json): Json {
  const unmarked = JSON.parse(JSON.stringify(body), (k, v: unknown) =>
    k === 'cache_control' ? undefined : v,
  ) as Json;
  const blocks = (content: unknown) =>
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  const messages = (unmarked.messages as Json[]).map((m) => ({ ...m, content: blocks(m.content) }));
  return { ...unmarked, messages, ...(unmarked.system !== undefined && { system: blocks(unmarked.system) }) };
}

describe('round trips through the hub (fast-check)', () => {
  it('messages request -> hub -> Anthropic provider request keeps every shared field', () => {
    fc.assert(
      fc.property(messagesRequest, (body) => {
        const out = anthropicProvider.fromHub(messagesClient.toHub(body), 'claude-x').body;
        expect(blocksForm(out)).toEqual(blocksForm(body));
      }),
      RUNS,
    );
  });

  it('hub request -> Anthropic provider request -> messagesClient.toHub gives the hub request back', () => {
    fc.assert(
      fc.property(hubRequest, (req) => {
        const back = messagesClient.toHub(anthropicProvider.fromHub(req, 'gpt-x').body);
        expect(back).toEqual(req);
      }),
      RUNS,
    );
  });
});
