import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type ChatMessage, type ChatRequest } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { chatRequest, completionOf, completionsRequest, responsesRequest, script } from './arbitraries.js';
import { chatClient, completionsClient, openAIChatProvider, responsesClient } from './index.js';

const ctx: ClientContext = { requestId: 'prop', model: 'm', created: 1, includeUsage: true, request: {} };

/** All text a list of hub messages carries, in order. */
const hubText = (messages: readonly ChatMessage[]): string =>
  messages
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join(''),
    )
    .join('');

/** All text a Responses input carries, in order. */
function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  return (input as JsonObject[])
    .map((item) => {
      if (item.type === 'function_call') return '';
      const content = item.type === 'function_call_output' ? item.output : item.content;
      if (typeof content === 'string') return content;
      return (content as JsonObject[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
    })
    .join('');
}

describe('property: chat requests', () => {
  it('go into the hub unchanged (chat is the hub)', () => {
    fc.assert(fc.property(chatRequest, (req) => expect(chatClient.toHub(req)).toEqual(req)));
  });

  it('reach an OpenAI upstream with the same messages, the upstream model and stream usage', () => {
    fc.assert(
      fc.property(chatRequest, (req) => {
        const { body } = openAIChatProvider.fromHub(chatClient.toHub(req), 'upstream-model');
        expect(body.model).toBe('upstream-model');
        expect(body.messages).toEqual(req.messages);
        expect(body.max_completion_tokens).toBe(req.max_completion_tokens);
        expect(body.stream_options).toEqual(req.stream ? { include_usage: true } : undefined);
        for (const key of [
          'temperature',
          'top_p',
          'stop',
          'tools',
          'tool_choice',
          'parallel_tool_calls',
        ] as const) {
          expect(body[key]).toEqual(req[key]);
        }
      }),
    );
  });
});

describe('property: responses requests', () => {
  it('translate without throwing and keep every shared field, all text and every call', () => {
    fc.assert(
      fc.property(responsesRequest, (req) => {
        const hub = responsesClient.toHub(req);
        const instructions = req.instructions === undefined ? '' : req.instructions;
        expect(hubText(hub.messages)).toBe(instructions + inputText(req.input));
        if (req.instructions !== undefined)
          expect(hub.messages[0]).toEqual({ role: 'system', content: req.instructions });
        expect(hub.max_completion_tokens).toBe(req.max_output_tokens);
        expect(hub.temperature).toBe(req.temperature);
        expect(hub.top_p).toBe(req.top_p);
        expect(hub.stream).toBe(req.stream);
        // Without tools, chat providers refuse tool settings: they are left out (client-responses-request.ts).
        const tools = req.tools?.length ? req.tools : undefined;
        expect(hub.parallel_tool_calls).toBe(tools && req.parallel_tool_calls);
        expect(hub.tools?.map((t) => [t.function.name, t.function.strict])).toEqual(
          tools?.map((t) => [t.name, t.strict]),
        );
        const calls = Array.isArray(req.input)
          ? req.input.filter((i) => 'type' in i && i.type === 'function_call')
          : [];
        expect(hub.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id)).toEqual(
          calls.map((c) => (c as JsonObject).call_id),
        );
        const outputs = Array.isArray(req.input)
          ? req.input.filter((i) => 'type' in i && i.type === 'function_call_output')
          : [];
        expect(hub.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(
          outputs.map((o) => (o as JsonObject).call_id),
        );
      }),
    );
  });

  it('round-trip: a response output sent back as input gives the hub its assistant turn back', () => {
    const spoken = script
      .filter((s) => s.text.join('') !== '' || s.calls.length > 0)
      .map((s) => ({ ...s, finish: 'stop' as const }));
    fc.assert(
      fc.property(spoken, (s) => {
        const completion = completionOf(s);
        const response = responsesClient.fromHub(completion, ctx);
        const hub = responsesClient.toHub({ model: 'm', input: response.output as unknown[] });
        expect(hub.messages).toEqual([completion.choices[0]!.message]);
      }),
    );
  });
});

describe('property: completions requests', () => {
  it('become one user message with the prompt and the shared sampling fields', () => {
    fc.assert(
      fc.property(completionsRequest, (req) => {
        const hub: ChatRequest = completionsClient.toHub(req);
        const prompt = Array.isArray(req.prompt) ? req.prompt[0] : req.prompt;
        expect(hub.messages).toEqual([{ role: 'user', content: prompt }]);
        expect(hub.max_tokens).toBe(req.max_tokens ?? 16);
        for (const key of [
          'temperature',
          'top_p',
          'stop',
          'presence_penalty',
          'frequency_penalty',
          'seed',
          'stream',
        ] as const) {
          expect(hub[key]).toEqual(req[key]);
        }
      }),
    );
  });
});
