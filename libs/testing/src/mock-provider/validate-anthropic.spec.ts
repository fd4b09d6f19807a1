import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from './types.js';
import { validateMessagesRequest } from './validate-anthropic.js';

/** The 400 body's message, or null when Anthropic would take the request. */
function rejection(body: JsonObject): string | null {
  const reply = validateMessagesRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...body });
  if (reply === null) return null;
  expect(reply.status).toBe(400);
  const error = (reply.body as { type: string; error: { type: string; message: string } }).error;
  expect(reply.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  return error.message;
}

const weather = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  input_schema: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};
const toolUse = {
  type: 'tool_use',
  id: 'toolu_01A',
  name: 'get_weather',
  input: { location: 'San Francisco, CA' },
};
const toolResult = { type: 'tool_result', tool_use_id: 'toolu_01A', content: '15 degrees' };
const ask = { role: 'user', content: "What's the weather like in San Francisco?" };

describe('validateMessagesRequest: what Anthropic accepts (examples from its docs)', () => {
  it.each<[string, JsonObject]>([
    ['a single user message', { messages: [{ role: 'user', content: 'Hello, Claude' }] }],
    [
      'several turns and a prefill',
      {
        messages: [
          { role: 'user', content: 'Hello there.' },
          { role: 'assistant', content: "Hi, I'm Claude. How can I help you?" },
          { role: 'user', content: 'Can you explain LLMs in plain English?' },
          { role: 'assistant', content: 'The best answer is (' },
        ],
      },
    ],
    [
      'consecutive user turns (combined into one) and an assistant first',
      {
        messages: [
          { role: 'assistant', content: 'Welcome.' },
          { role: 'user', content: 'One.' },
          { role: 'user', content: [{ type: 'text', text: 'Two.' }] },
        ],
      },
    ],
    [
      'a tool loop with cache_control and an error result',
      {
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        tools: [weather],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [
          ask,
          { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, toolUse] },
          {
            role: 'user',
            content: [
              { ...toolResult, is_error: true, cache_control: { type: 'ephemeral' } },
              { type: 'text', text: 'What should I do next?' },
            ],
          },
        ],
      },
    ],
    [
      'parallel tool results, one split into a following user message',
      {
        tools: [weather, { ...weather, name: 'get_time' }],
        messages: [
          ask,
          { role: 'assistant', content: [toolUse, { ...toolUse, id: 'toolu_01B', name: 'get_time' }] },
          { role: 'user', content: [toolResult] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: '9:00' }] },
            ],
          },
        ],
      },
    ],
    [
      'images by base64 and url, thinking with its signature',
      {
        thinking: { type: 'enabled', budget_tokens: 10000, display: 'omitted' },
        max_tokens: 16000,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
              { type: 'text', text: 'Describe these.' },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'thinking', thinking: 'Two images.', signature: 'EqQBCg' }],
          },
          { role: 'user', content: 'Go on.' },
        ],
      },
    ],
  ])('accepts %s', (_name, body) => {
    expect(rejection(body)).toBeNull();
  });
});

describe('validateMessagesRequest: what Anthropic rejects, with its message', () => {
  it.each<[string, JsonObject, string]>([
    [
      'an unknown field',
      { messages: [ask], stream_options: {} },
      'stream_options: Extra inputs are not permitted',
    ],
    [
      'max_tokens below 1',
      { messages: [ask], max_tokens: 0 },
      'max_tokens: Input should be greater than or equal to 1',
    ],
    [
      'a temperature above 1',
      { messages: [ask], temperature: 1.5 },
      'temperature: Input should be less than or equal to 1',
    ],
    [
      'a system message',
      { messages: [{ role: 'system', content: 'x' }, ask] },
      'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
    ],
    [
      'a tool role',
      { messages: [ask, { role: 'tool', content: 'x' }] },
      "messages.1.role: Input should be 'user' or 'assistant'",
    ],
    [
      'a field on a message',
      { messages: [{ ...ask, name: 'ana' }] },
      'messages.0.name: Extra inputs are not permitted',
    ],
    [
      'system as an object',
      { system: { text: 'x' }, messages: [ask] },
      'system: Input should be a valid list',
    ],
    [
      'a system block that is not text',
      { system: [{ type: 'image' }], messages: [ask] },
      "system.0.type: Input should be 'text'",
    ],
    [
      'an unknown block type',
      { messages: [{ role: 'user', content: [{ type: 'input_text', text: 'x' }] }] },
      "messages.0.content.0: Input tag 'input_text' found using 'type' does not match any of the expected tags",
    ],
    [
      'a non-string text',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 3 }] }] },
      'messages.0.content.0.text.text: Input should be a valid string',
    ],
    [
      'an empty text block',
      { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      'messages: text content blocks must be non-empty',
    ],
    [
      'an extra field in a block',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x', detail: 'auto' }] }] },
      'messages.0.content.0.text.detail: Extra inputs are not permitted',
    ],
    [
      'an image with an OpenAI data URL',
      {
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'image_url', url: 'data:' } }] },
        ],
      },
      'messages.0.content.0.image.source: Input tag does not match any of the expected tags',
    ],
    [
      'tool_use input as a JSON string',
      { messages: [ask, { role: 'assistant', content: [{ ...toolUse, input: '{}' }] }] },
      'messages.1.content.0.tool_use.input: Input should be a valid dictionary',
    ],
    [
      'a thinking block without its signature',
      { messages: [ask, { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }] }] },
      'messages.1.content.0.thinking.signature: Field required',
    ],
    [
      'a tool_result without its tool_use',
      { messages: [ask, { role: 'assistant', content: 'ok' }, { role: 'user', content: [toolResult] }] },
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'a tool_use left unanswered',
      { messages: [ask, { role: 'assistant', content: [toolUse] }, { role: 'user', content: 'and?' }] },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'text before the tool results',
      {
        messages: [
          ask,
          { role: 'assistant', content: [toolUse] },
          { role: 'user', content: [{ type: 'text', text: 'Here:' }, toolResult] },
        ],
      },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A',
    ],
    [
      'a tool name with a dot',
      { messages: [ask], tools: [{ ...weather, name: 'weather.get' }] },
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    [
      'an OpenAI-shaped tool',
      { messages: [ask], tools: [{ name: 'f', parameters: { type: 'object' } }] },
      'tools.0.custom.parameters: Extra inputs are not permitted',
    ],
    [
      'a schema that is not an object',
      { messages: [ask], tools: [{ name: 'f', input_schema: { type: 'string' } }] },
      "tools.0.custom.input_schema.type: Input should be 'object'",
    ],
    [
      'two tools with one name',
      { messages: [ask], tools: [weather, weather] },
      'tools: Tool names must be unique.',
    ],
    [
      'tool_choice in OpenAI form',
      { messages: [ask], tools: [weather], tool_choice: 'auto' },
      'tool_choice: Input should be a valid dictionary',
    ],
    [
      'a forced tool that is not offered',
      { messages: [ask], tools: [weather], tool_choice: { type: 'tool', name: 'get_time' } },
      "tool_choice.name: Tool 'get_time' not found in tools",
    ],
    [
      'a thinking budget under 1024',
      { messages: [ask], thinking: { type: 'enabled', budget_tokens: 512 } },
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    ],
    [
      'a thinking budget not below max_tokens',
      { messages: [ask], thinking: { type: 'enabled', budget_tokens: 1024 } },
      '`max_tokens` must be greater than `thinking.budget_tokens`.',
    ],
    [
      'thinking with a temperature other than 1',
      {
        messages: [ask],
        max_tokens: 4096,
        temperature: 0.2,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      },
      '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.',
    ],
    [
      'thinking with a forced tool',
      {
        messages: [ask],
        max_tokens: 4096,
        tools: [weather],
        tool_choice: { type: 'any' },
        thinking: { type: 'enabled', budget_tokens: 1024 },
      },
      'Thinking may not be enabled when tool_choice forces tool use.',
    ],
  ])('rejects %s', (_name, body, message) => {
    expect(rejection(body)).toContain(message);
  });
});
