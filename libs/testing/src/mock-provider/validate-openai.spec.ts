import { describe, expect, it } from '@jest/globals';
import type { Flavour, JsonObject, JsonReply } from './types.js';
import { validateChatRequest } from './validate-openai-chat.js';
import { validateResponsesRequest } from './validate-openai-responses.js';

type OpenAIBody = { error: { message: string; type: string; param: string | null; code: string | null } };

/** The 400's error object, or null when the vendor would take the request. */
function errorOf(reply: JsonReply | null): OpenAIBody['error'] | null {
  if (reply === null) return null;
  expect(reply.status).toBe(400);
  return (reply.body as OpenAIBody).error;
}

const chat = (body: JsonObject, flavour: Flavour = 'openai') =>
  errorOf(validateChatRequest({ model: 'gpt-4o', ...body }, flavour));
const responses = (body: JsonObject) => errorOf(validateResponsesRequest({ model: 'gpt-4o', ...body }));

const fn = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
};
const call = {
  id: 'call_1',
  type: 'function',
  function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
};
const user = { role: 'user', content: 'Weather in Paris?' };

describe('validateChatRequest: what OpenAI accepts (examples from its docs)', () => {
  it.each<[string, JsonObject]>([
    [
      'developer, parts with an image, two user turns in a row',
      {
        messages: [
          { role: 'developer', content: 'You are a helpful assistant.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: "What's in this image?" },
              { type: 'image_url', image_url: { url: 'https://example.com/a.jpg', detail: 'low' } },
            ],
          },
          { role: 'user', content: 'Be brief.' },
        ],
      },
    ],
    [
      'a tool loop, duplicate tool names, stream options with stream',
      {
        tools: [fn, fn],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          user,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: '15 degrees' },
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
        ],
      },
    ],
  ])('accepts %s', (_name, body) => {
    expect(chat(body)).toBeNull();
  });

  it('accepts Perplexity turns that alternate after the system messages', () => {
    const messages = [
      { role: 'system', content: 'Be precise.' },
      user,
      { role: 'assistant', content: 'Sunny.' },
      user,
    ];
    expect(chat({ messages }, 'perplexity')).toBeNull();
  });
});

describe('validateChatRequest: what OpenAI rejects, with its message and param', () => {
  it.each<[string, JsonObject, Partial<OpenAIBody['error']>]>([
    [
      'an unknown field',
      { messages: [user], top_k: 3 },
      { message: 'Unrecognized request argument supplied: top_k' },
    ],
    [
      'an unknown role',
      { messages: [{ role: 'model', content: 'x' }] },
      { param: 'messages[0].role', code: 'invalid_value' },
    ],
    [
      'a null user content',
      { messages: [{ role: 'user', content: null }] },
      { message: "Invalid value for 'content': expected a string, got null.", param: 'messages.[0].content' },
    ],
    [
      'an Anthropic text block type',
      { messages: [{ role: 'user', content: [{ type: 'input_text', text: 'x' }] }] },
      { param: 'messages[0].content[0].type', code: 'invalid_value' },
    ],
    [
      'an image part in an assistant message',
      { messages: [user, { role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
      { param: 'messages[1].content[0].type', code: 'invalid_value' },
    ],
    [
      'empty tool_calls',
      { messages: [user, { role: 'assistant', content: 'x', tool_calls: [] }] },
      {
        message:
          "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        code: 'empty_array',
      },
    ],
    [
      'tool call arguments as an object',
      {
        messages: [
          user,
          { role: 'assistant', tool_calls: [{ ...call, function: { name: 'get_weather', arguments: {} } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'x' },
        ],
      },
      { param: 'messages[1].tool_calls[0].function.arguments', code: 'invalid_type' },
    ],
    [
      'a tool message without its call',
      { messages: [user, { role: 'tool', tool_call_id: 'call_1', content: 'x' }] },
      {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      },
    ],
    [
      'a call left unanswered',
      { messages: [user, { role: 'assistant', tool_calls: [call] }, user] },
      {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
      },
    ],
    [
      'tools: []',
      { messages: [user], tools: [] },
      {
        message:
          "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        code: 'empty_array',
      },
    ],
    [
      'a function name with a dot',
      { messages: [user], tools: [{ type: 'function', function: { name: 'a.b' } }] },
      {
        message:
          "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        param: 'tools[0].function.name',
      },
    ],
    [
      'a function name over 64 characters',
      { messages: [user], tools: [{ type: 'function', function: { name: 'f'.repeat(65) } }] },
      { code: 'string_above_max_length' },
    ],
    [
      'a forced function that is not offered',
      { messages: [user], tools: [fn], tool_choice: { type: 'function', function: { name: 'get_time' } } },
      { message: "Tool choice 'get_time' not found in 'tools' parameter.", param: 'tool_choice' },
    ],
    [
      'tool_choice without tools',
      { messages: [user], tool_choice: 'auto' },
      {
        message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      },
    ],
    [
      'parallel_tool_calls without tools',
      { messages: [user], parallel_tool_calls: true },
      { param: 'parallel_tool_calls' },
    ],
    [
      'stream_options without stream',
      { messages: [user], stream_options: { include_usage: true } },
      { message: "The 'stream_options' parameter is only allowed when 'stream' is enabled." },
    ],
    ['n of 0', { messages: [user], n: 0 }, { param: 'n', code: 'integer_below_min_value' }],
  ])('rejects %s', (_name, body, expected) => {
    expect(chat(body)).toMatchObject(expected);
  });

  it('rejects tools and consecutive user turns at Perplexity', () => {
    expect(chat({ messages: [user], tools: [fn] }, 'perplexity')).toMatchObject({
      message: 'Tool calling is not supported for this model.',
    });
    expect(chat({ messages: [user, user] }, 'perplexity')).toMatchObject({
      message: 'After the (optional) system message(s), user and assistant roles should be alternating.',
    });
  });
});

const fnCall = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' };

describe('validateResponsesRequest', () => {
  it('accepts easy messages, assistant output_text, a call and its output, flat and namespaced tools', () => {
    expect(
      responses({
        input: [
          { role: 'developer', content: 'Be brief.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          fnCall,
          { type: 'function_call_output', call_id: 'call_1', output: '15 degrees' },
        ],
        tools: [
          { type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false },
          {
            type: 'namespace',
            name: 'agents',
            description: 'd',
            tools: [{ type: 'function', name: 'spawn' }],
          },
          { type: 'web_search' },
        ],
        tool_choice: { type: 'function', name: 'get_weather' },
      }),
    ).toBeNull();
  });

  it.each<[string, JsonObject, Partial<OpenAIBody['error']>]>([
    [
      'an unknown field',
      { input: 'x', max_tokens: 5 },
      { message: "Unknown parameter: 'max_tokens'.", code: 'unknown_parameter' },
    ],
    [
      'an unknown item type',
      { input: [{ type: 'tool_result' }] },
      { param: 'input[0].type', code: 'invalid_value' },
    ],
    [
      'input_text in an assistant message',
      { input: [{ role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }] },
      {
        message: "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
        param: 'input[0].content[0]',
      },
    ],
    [
      'an output without its call',
      { input: [{ type: 'function_call_output', call_id: 'call_9', output: 'x' }] },
      { message: 'No tool call found for function call output with call_id call_9.', param: 'input' },
    ],
    [
      'a Chat Completions tool',
      { input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] },
      { message: "Missing required parameter: 'tools[0].name'." },
    ],
    [
      'a namespace holding a hosted tool',
      { input: 'x', tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }] },
      { param: 'tools[0].tools[0].type' },
    ],
    [
      'a forced function that is not offered',
      { input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } },
      { message: "Tool choice 'g' not found in 'tools' parameter." },
    ],
  ])('rejects %s', (_name, body, expected) => {
    expect(responses(body)).toMatchObject(expected);
  });
});
