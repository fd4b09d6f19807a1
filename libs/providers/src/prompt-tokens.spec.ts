import { describe, expect, it } from '@jest/globals';
import { type ChatRequest } from './chat.js';
import { countPromptTokens } from './prompt-tokens.js';
import { textCounterFor, type TokenizerFamily } from './tokenizer.js';

/**
 * References: the prompt_tokens the OpenAI API reported for the examples of OpenAI's cookbook
 * "How to count tokens with tiktoken" (sections 6 and 7): gpt-4o / gpt-4o-mini (o200k) and
 * gpt-4 / gpt-3.5-turbo (cl100k). The local count must equal them exactly.
 */
const JARGON: ChatRequest = {
  model: 'gpt-4o',
  messages: [
    {
      role: 'system',
      content:
        'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
    },
    { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
    {
      role: 'system',
      name: 'example_assistant',
      content: 'Things working well together will increase revenue.',
    },
    {
      role: 'system',
      name: 'example_user',
      content:
        "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
    },
    {
      role: 'system',
      name: 'example_assistant',
      content: "Let's talk later when we're less busy about how to do better.",
    },
    {
      role: 'user',
      content: "This late pivot means we don't have time to boil the ocean for the client deliverable.",
    },
  ],
};

const WEATHER_TOOLS: ChatRequest = {
  model: 'gpt-4o',
  messages: [
    {
      role: 'system',
      content: 'You are a helpful assistant that can answer to questions about the weather.',
    },
    { role: 'user', content: "What's the weather like in San Francisco?" },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_current_weather',
        description: 'Get the current weather in a given location',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
            unit: {
              type: 'string',
              description: 'The unit of temperature to return',
              enum: ['celsius', 'fahrenheit'],
            },
          },
          required: ['location'],
        },
      },
    },
  ],
};

const count = async (req: ChatRequest, family: TokenizerFamily) =>
  countPromptTokens(req, await textCounterFor(family), family);

describe('countPromptTokens against the OpenAI API', () => {
  it.each([
    ['o200k', JARGON, 124],
    ['cl100k', JARGON, 129],
    ['o200k', WEATHER_TOOLS, 101],
    ['cl100k', WEATHER_TOOLS, 105],
  ] as const)('%s: %#', async (family, req, apiCount) => {
    expect(await count(req, family)).toBe(apiCount);
  });
});

describe('countPromptTokens', () => {
  it('counts tool calls of assistant turns and the results that follow them', async () => {
    const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'List the files' }] };
    const withCall: ChatRequest = {
      model: 'm',
      messages: [
        ...base.messages,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'README.md\npackage.json' },
      ],
    };
    const o = await textCounterFor('o200k');
    const call = 3 + o('ls') + o('{"path":"."}');
    const result = 4 + o('README.md\npackage.json');
    expect(await count(withCall, 'o200k')).toBe((await count(base, 'o200k')) + 4 + call + result);
  });

  it('adds an image by its size and leaves earlier thinking out', async () => {
    const text: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Describe' }] };
    const png = Buffer.alloc(24);
    png.writeUInt32BE(0x89504e47, 0);
    png.writeUInt32BE(1000, 16);
    png.writeUInt32BE(1000, 20);
    const withImage: ChatRequest = {
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'a long chain of thought '.repeat(50),
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          ],
        },
      ],
    };
    // 1000 x 1000 px fits as is: ceil(1e6 / 750) = 1334 tokens; the assistant turn is framing only.
    expect(await count(withImage, 'o200k')).toBe((await count(text, 'o200k')) + 1334 + 4);
  });

  it('gives Claude tools as JSON behind the documented tool-use system prompt (346, or 313 when forced)', async () => {
    const c = await textCounterFor('claude');
    const auto = await count({ ...WEATHER_TOOLS, tool_choice: 'auto' }, 'claude');
    const forced = await count({ ...WEATHER_TOOLS, tool_choice: 'required' }, 'claude');
    const none = await count({ ...WEATHER_TOOLS, tools: [] }, 'claude');
    const fn = WEATHER_TOOLS.tools![0]!.function;
    const json = c(
      JSON.stringify({ name: fn.name, description: fn.description, input_schema: fn.parameters }),
    );
    expect(auto - none).toBe(346 + json);
    expect(forced - none).toBe(313 + json);
  });
});
