import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { mockEmbedding } from '#libs/testing';
import {
  AZURE_DEPLOYMENT,
  expectLogged,
  lastUpstream,
  type Matrix,
  MODEL_OF,
  PROVIDER_TYPES,
  startMatrix,
} from './conformance-support.js';

/** Conformance matrix: legacy completions, embeddings and models, every provider type. */
let m: Matrix;

beforeAll(async () => {
  m = await startMatrix('e2e-conf-completions');
}, 30_000);

afterAll(async () => {
  await m?.gw.close();
});

describe.each(PROVIDER_TYPES)('completions -> %s provider', (type) => {
  const model = MODEL_OF[type];
  const base = { model, prompt: 'Hello matrix completions', max_tokens: 60 };

  it('answers non-stream with usage, logged and charged exactly', async () => {
    const { data, response } = await m.openai.completions.create(base).withResponse();
    expect(data.object).toBe('text_completion');
    expect(data.choices[0]!.text).toMatch(/mock reply to: Hello matrix completions/);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/completions',
      type,
      stream: false,
      usage: { input: data.usage!.prompt_tokens, output: data.usage!.completion_tokens },
    });
  });

  it('streams text deltas; usage only when asked, always logged', async () => {
    const reference = await m.openai.completions.create(base);
    const { data: stream, response } = await m.openai.completions
      .create({ ...base, stream: true })
      .withResponse();
    let text = '';
    let annotations = 0;
    for await (const chunk of stream) {
      // Azure opens its streams with the prompt's content filter verdicts (no choices, no
      // object): a native stream passes it through as Azure sends it.
      if (type === 'azure-openai' && 'prompt_filter_results' in chunk) {
        expect([chunk.object, chunk.choices]).toEqual(['', []]);
        annotations++;
        continue;
      }
      expect(chunk.object).toBe('text_completion');
      if (type !== 'perplexity') expect(chunk.usage ?? undefined).toBeUndefined();
      text += chunk.choices[0]?.text ?? '';
    }
    expect(text).toBe(reference.choices[0]!.text);
    expect(annotations).toBe(type === 'azure-openai' ? 1 : 0);
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/completions',
      type,
      stream: true,
      usage: { input: reference.usage!.prompt_tokens, output: reference.usage!.completion_tokens },
    });

    const asked = await m.openai.completions.create({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of asked) usage = chunk.usage ?? usage;
    expect(usage).toMatchObject({
      prompt_tokens: reference.usage!.prompt_tokens,
      completion_tokens: reference.usage!.completion_tokens,
    });
  });
});

/** Where each provider type embeds (Azure: under the deployment, with the api-version as query). */
const EMBEDDINGS_PATH = {
  openai: '/v1/embeddings',
  'openai-compatible': '/compat/v1/embeddings',
  'azure-openai': `/openai/deployments/${AZURE_DEPLOYMENT}/embeddings`,
} as const;

describe.each(['openai', 'openai-compatible', 'azure-openai'] as const)(
  'embeddings -> %s provider',
  (type) => {
    const model = MODEL_OF[type];

    it('embeds a string as base64 (the SDK default, decoded) and as floats, with dimensions', async () => {
      const { data, response } = await m.openai.embeddings
        .create({ model, input: 'embed me', dimensions: 8 })
        .withResponse();
      expect(lastUpstream(m.gw, EMBEDDINGS_PATH[type]).body).toMatchObject({
        encoding_format: 'base64',
        dimensions: 8,
      });
      const expected = Array.from(mockEmbedding('embed me', 8));
      expect(data.data[0]!.embedding).toHaveLength(8);
      data.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
      await expectLogged(m.gw, response.headers.get('x-request-id')!, {
        endpoint: '/v1/embeddings',
        type,
        stream: false,
        usage: { input: data.usage.prompt_tokens, output: 0 },
      });
      const floats = await m.openai.embeddings.create({
        model,
        input: 'embed me',
        encoding_format: 'float',
        dimensions: 8,
      });
      floats.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    });

    it('embeds an array of inputs, one vector each, in order', async () => {
      const data = await m.openai.embeddings.create({
        model,
        input: ['one', 'two', 'three'],
        encoding_format: 'float',
      });
      expect(data.data.map((d) => d.index)).toEqual([0, 1, 2]);
      expect(data.data[1]!.embedding[0]).toBeCloseTo(mockEmbedding('two', 16)[0]!, 6);
    });
  },
);

describe.each(['perplexity', 'anthropic'] as const)('embeddings -> %s provider', (type) => {
  it('is refused cleanly: 400 in shape A, no upstream call', async () => {
    const before = m.gw.mock.requests.length;
    const err = await m.openai.embeddings
      .create({ model: MODEL_OF[type], input: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: `The providers of the model \`${MODEL_OF[type]}\` cannot serve /v1/embeddings.`,
      type: 'invalid_request_error',
      param: 'model',
      code: 'invalid_request',
    });
    expect(m.gw.mock.requests.slice(before).filter((r) => r.path.endsWith('embeddings'))).toEqual([]);
  });
});

describe('models', () => {
  it('lists every model of the key group, whatever its provider type', async () => {
    const page = await m.openai.models.list();
    expect(page.data.map((d) => d.id).sort()).toEqual(Object.values(MODEL_OF).sort());
  });
});
