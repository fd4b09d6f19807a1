import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

let gw: Gateway;
let client: OpenAI;

/** The default config plus an Anthropic provider: alone for one model, beside OpenAI for another. */
function config(mockUrl: string): GatewayConfigInput {
  const base = testConfig(mockUrl);
  const model = (id: string) => ({ ...base.models[0]!, id });
  return {
    ...base,
    providers: [
      { ...base.providers[0]!, models: [...base.providers[0]!.models, 'mock-mixed'] },
      { id: 'mock-anthropic', type: 'anthropic', base_url: mockUrl, models: ['mock-claude', 'mock-mixed'] },
    ],
    models: [...base.models, model('mock-claude'), model('mock-mixed')],
    groups: { ...base.groups, default: [...(base.groups.default as string[]), 'mock-claude', 'mock-mixed'] },
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-openai-endpoints', config);
  const key = await gw.createKey();
  client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

/** The log row has the endpoint, the provider, exact usage and the cost (1 and 2 credits per million). */
async function expectLogged(
  requestId: string,
  endpoint: string,
  usage: { input: number; output: number },
  stream = false,
): Promise<void> {
  const row = await gw.logRow(requestId);
  expect(row).toMatchObject({ endpoint, model: 'mock-gpt', provider_id: 'mock-openai', status: 200, stream });
  expect(row.error_code).toBeNull();
  expect(Number(row.input_tokens)).toBe(usage.input);
  expect(Number(row.output_tokens)).toBe(usage.output);
  expect(Number(row.cost_nanos)).toBe(usage.input * 1000 + usage.output * 2000);
}

const lastSent = (path: string) => gw.mock.requests.filter((r) => r.path === path).at(-1)!;

describe('POST /v1/completions', () => {
  it('answers non-stream and logs usage and cost', async () => {
    const { data, response } = await client.completions
      .create({ model: 'mock-gpt', prompt: 'Say this is a test', max_tokens: 50 })
      .withResponse();
    expect(data.object).toBe('text_completion');
    expect(data.choices[0]!.text).toMatch(/Say this is a test/);
    await expectLogged(response.headers.get('x-request-id')!, '/v1/completions', {
      input: data.usage!.prompt_tokens,
      output: data.usage!.completion_tokens,
    });
  });

  it('streams to [DONE], asks upstream for usage, strips the usage chunk and still logs usage', async () => {
    const { data: stream, response } = await client.completions
      .create({ model: 'mock-gpt', prompt: 'Stream me a story', max_tokens: 50, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.choices.length).toBe(1);
      text += chunk.choices[0]!.text;
    }
    expect(text).toMatch(/Stream me a story/);
    expect((lastSent('/v1/completions').body as { stream_options?: unknown }).stream_options).toEqual({
      include_usage: true,
    });
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row).toMatchObject({ endpoint: '/v1/completions', stream: true, status: 200, error_code: null });
    expect(Number(row.output_tokens)).toBeGreaterThan(0);
  });

  it('passes the usage chunk through when the client asks for it', async () => {
    const stream = await client.completions.create({
      model: 'mock-gpt',
      prompt: 'with usage',
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('is served by either provider of the model, the Anthropic one through the hub', async () => {
    for (let i = 0; i < 4; i++) {
      const { data, response } = await client.completions
        .create({ model: 'mock-mixed', prompt: 'hi', max_tokens: 50 })
        .withResponse();
      expect(data.object).toBe('text_completion');
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ status: 200, error_code: null });
      expect(['mock-openai', 'mock-anthropic']).toContain(row.provider_id);
    }
  });

  it('requires a prompt', async () => {
    const err = await client.completions
      .create({ model: 'mock-gpt' } as unknown as OpenAI.CompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).param).toBe('prompt');
  });
});

describe('POST /v1/embeddings', () => {
  it('embeds a string as floats and logs prompt tokens as input, none as output', async () => {
    const { data, response } = await client.embeddings
      .create({ model: 'mock-gpt', input: 'The food was delicious', encoding_format: 'float' })
      .withResponse();
    expect(data.data).toHaveLength(1);
    expect(data.data[0]!.embedding.length).toBeGreaterThan(0);
    await expectLogged(response.headers.get('x-request-id')!, '/v1/embeddings', {
      input: data.usage.prompt_tokens,
      output: 0,
    });
  });

  it('passes an array input and base64 encoding through untouched', async () => {
    const res = await fetch(`${gw.edgeUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-gpt', input: ['one', 'two'], encoding_format: 'base64' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { embedding: unknown; index: number }[] };
    expect(body.data.map((d) => d.index)).toEqual([0, 1]);
    expect(typeof body.data[0]!.embedding).toBe('string');
    expect(lastSent('/v1/embeddings').body).toEqual({
      model: 'mock-gpt',
      input: ['one', 'two'],
      encoding_format: 'base64',
    });
    // The SDK asks for base64 by default and decodes it into floats.
    const decoded = await client.embeddings.create({ model: 'mock-gpt', input: ['one', 'two'] });
    expect(decoded.data[1]!.embedding.length).toBeGreaterThan(0);
  });
});

describe('POST /v1/responses', () => {
  it('creates a response and logs input and output tokens', async () => {
    const { data, response } = await client.responses
      .create({ model: 'mock-gpt', input: 'Tell me a bedtime story' })
      .withResponse();
    expect(data.object).toBe('response');
    expect(data.output_text).toMatch(/Tell me a bedtime story/);
    await expectLogged(response.headers.get('x-request-id')!, '/v1/responses', {
      input: data.usage!.input_tokens,
      output: data.usage!.output_tokens,
    });
  });

  it('relays the typed event stream; the SDK helper gets the final response and usage is logged', async () => {
    const stream = client.responses.stream({ model: 'mock-gpt', input: 'Stream a story' });
    const types = new Set<string>();
    stream.on('event', (e) => types.add(e.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toMatch(/Stream a story/);
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.completed');
    const requestId = await onlyStreamRowOf('/v1/responses');
    await expectLogged(
      requestId,
      '/v1/responses',
      { input: final.usage!.input_tokens, output: final.usage!.output_tokens },
      true,
    );
  });
});

describe('a model only an Anthropic provider serves', () => {
  it.each([
    ['/v1/completions', { prompt: 'hi' }],
    ['/v1/responses', { input: 'hi' }],
  ])('%s is translated to Anthropic Messages', async (path, fields) => {
    const res = await fetch(`${gw.edgeUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-claude', ...fields }),
    });
    expect(res.status).toBe(200);
    const row = await gw.logRow(res.headers.get('x-request-id')!);
    expect(row).toMatchObject({ endpoint: path, provider_id: 'mock-anthropic', status: 200 });
  });

  it('/v1/embeddings answers 400 invalid_request in shape A, without an upstream call', async () => {
    const res = await fetch(`${gw.edgeUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-claude', input: 'hi' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    expect(body.error.message).toContain('cannot serve /v1/embeddings');
    expect(
      gw.mock.requests.some(
        (r) => r.path === '/v1/embeddings' && (r.body as { model?: string }).model === 'mock-claude',
      ),
    ).toBe(false);
  });
});

/** The one streamed log row of an endpoint (the stream helper hides the response headers). */
async function onlyStreamRowOf(endpoint: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const row = await gw.db.db
      .selectFrom('request_logs')
      .select('request_id')
      .where('endpoint', '=', endpoint)
      .where('stream', '=', true)
      .executeTakeFirst();
    if (row) return row.request_id;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log row for ${endpoint}`);
}
