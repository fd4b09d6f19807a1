import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startMockProvider } from './server.js';
import type { MockProvider } from './types.js';

let mock: MockProvider;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockProvider();
  client = new Anthropic({ baseURL: mock.url, apiKey: 'sk-mock', maxRetries: 0 });
});

afterAll(async () => {
  await mock?.close();
});

describe('POST /v1/messages/count_tokens (mock)', () => {
  it('answers a deterministic count: a quarter of the characters of text and tool JSON', async () => {
    const tools = [{ name: 'ls', input_schema: { type: 'object' as const } }];
    const count = await client.messages.countTokens({
      model: 'claude-x',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello there' }],
      tools,
    });
    const chars = 'Be brief.'.length + 'Hello there'.length + JSON.stringify(tools).length;
    expect(count).toEqual({ input_tokens: Math.ceil(chars / 4) });
  });

  it('validates like Anthropic: messages required, generation settings are extra inputs', async () => {
    const cases: Array<[object, string]> = [
      [{ model: 'claude-x' }, 'messages: Field required'],
      [{ model: 'claude-x', messages: [] }, 'messages: at least one message is required'],
      [
        { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
        'max_tokens: Extra inputs are not permitted',
      ],
      [
        { model: 'claude-x', messages: [{ role: 'system', content: 'hi' }] },
        "messages.0.role: Input should be 'user' or 'assistant'",
      ],
    ];
    for (const [body, message] of cases) {
      const err = (await client.messages
        .countTokens(body as Anthropic.MessageCountTokensParams)
        .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
    }
  });
});
