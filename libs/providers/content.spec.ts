import { describe, expect, it } from '@jest/globals';
import { messagesWire } from './anthropic/index.js';
import { chatWire, responsesWire } from './openai/index.js';
import { CLIENT_APIS } from './registry.js';
import { type JsonObject } from './src/types.js';

const inputContent = (api: keyof typeof CLIENT_APIS, body: JsonObject) => CLIENT_APIS[api].inputContent(body);
/** Each wire format reads only its own bodies: the first that recognises one answers. */
const outputMessages = (body: JsonObject | null) =>
  body === null
    ? null
    : (chatWire.outputMessages(body) ??
      responsesWire.outputMessages(body) ??
      messagesWire.outputMessages(body));

const PNG = 'iVBORw0KGgo=';

describe('inputContent: the client body in the conventions shapes', () => {
  it('chat: system in the history, images, tool calls and results, names; nothing else of the body', () => {
    const got = inputContent('chat', {
      model: 'gpt-4o',
      user: 'user-123',
      metadata: { secret: 'not content' },
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          name: 'ann',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
    });
    expect(got).toEqual({
      system: null,
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        {
          role: 'user',
          name: 'ann',
          parts: [
            { type: 'text', content: 'What is this?' },
            { type: 'blob', modality: 'image', mime_type: 'image/png', content: PNG },
            { type: 'uri', modality: 'image', mime_type: null, uri: 'https://example.com/cat.jpg' },
          ],
        },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'cat' } }],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'a cat' }] },
      ],
    });
    expect(JSON.stringify(got)).not.toContain('not content');
  });

  it('completions and embeddings: a text, texts, or tokens', () => {
    const user = (part: object) => ({ role: 'user', parts: [part] });
    expect(inputContent('completions', { prompt: 'Say hi' }).messages).toEqual([
      user({ type: 'text', content: 'Say hi' }),
    ]);
    expect(inputContent('embeddings', { input: ['a', 'b'] }).messages).toEqual([
      user({ type: 'text', content: 'a' }),
      user({ type: 'text', content: 'b' }),
    ]);
    expect(inputContent('embeddings', { input: [1, 2, 3] }).messages).toEqual([
      user({ type: 'tokens', content: [1, 2, 3] }),
    ]);
  });

  it('responses: instructions apart, items (messages, function calls and outputs, reasoning)', () => {
    const got = inputContent('responses', {
      instructions: 'Answer in French.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Call the tool.' }] },
        { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_9', output: '{"temp":18}' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Il fait 18.' }] },
      ],
    });
    expect(got).toEqual({
      system: [{ type: 'text', content: 'Answer in French.' }],
      messages: [
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'reasoning', content: 'Call the tool.' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_9', name: 'get_weather', arguments: { city: 'Paris' } }],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_9', response: '{"temp":18}' }] },
        { role: 'assistant', parts: [{ type: 'text', content: 'Il fait 18.' }] },
      ],
    });
    expect(inputContent('responses', { input: 'hi' })).toEqual({
      system: null,
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }],
    });
  });

  it('messages: system apart, blocks (image, tool use and result, thinking)', () => {
    const got = inputContent('messages', {
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'text', text: 'Describe it.' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'zoom', input: { level: 2 } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'zoomed' }] },
      ],
    });
    expect(got).toEqual({
      system: [{ type: 'text', content: 'You are terse.' }],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'blob', modality: 'image', mime_type: 'image/png', content: PNG },
            { type: 'text', content: 'Describe it.' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', content: 'Look first.' },
            { type: 'tool_call', id: 'toolu_1', name: 'zoom', arguments: { level: 2 } },
          ],
        },
        { role: 'user', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: 'zoomed' }] },
      ],
    });
    expect(inputContent('messages', { system: 'plain', messages: [] }).system).toEqual([
      { type: 'text', content: 'plain' },
    ]);
  });
});

describe('outputMessages: the upstream answer in any wire format', () => {
  it('chat: one message per choice, tool calls, the finish reason as the vendor said it', () => {
    expect(
      outputMessages({
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' },
          {
            index: 1,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }),
    ).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }], finish_reason: 'stop' },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: {} }],
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('completions, responses and messages answers', () => {
    expect(
      outputMessages({ object: 'text_completion', choices: [{ text: 'hi', finish_reason: 'length' }] }),
    ).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'hi' }], finish_reason: 'length' }]);
    expect(
      outputMessages({
        object: 'response',
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Bonj' }] }],
      }),
    ).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Bonj' }], finish_reason: 'max_output_tokens' },
    ]);
    expect(
      outputMessages({ type: 'message', content: [{ type: 'text', text: 'Hi.' }], stop_reason: 'end_turn' }),
    ).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Hi.' }], finish_reason: 'end_turn' }]);
  });

  it('nothing generated: embeddings, errors, not JSON', () => {
    expect(outputMessages({ object: 'list', data: [{ embedding: [0.1] }] })).toBeNull();
    expect(outputMessages({ error: { message: 'bad' } })).toBeNull();
    expect(outputMessages(null)).toBeNull();
  });
});
