import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { mockEmbedding } from '#libs/testing';
import {
  ALL_MODELS,
  AZURE_DEPLOYMENT,
  cannotServe,
  EMBEDDING_ROWS,
  EMBEDS,
  expectLogged,
  lastUpstream,
  type Matrix,
  MODEL_OF,
  ROWS,
  TEXT_ROWS,
  startMatrix,
  upstreamCallsFrom,
} from './conformance-support.js';

/** Conformance matrix: legacy completions, embeddings and models, every row (provider type). */
let m: Matrix;

beforeAll(async () => {
  m = await startMatrix('e2e-conf-completions');
}, 30_000);

afterAll(async () => {
  await m?.close();
});

describe.each(TEXT_ROWS)('completions -> %s', (row) => {
  const model = MODEL_OF[row];
  const base = { model, prompt: 'Hello matrix completions', max_tokens: 60 };

  it('answers non-stream with usage, logged and charged exactly', async () => {
    const { data, response } = await m.openai.completions.create(base).withResponse();
    expect(data.object).toBe('text_completion');
    expect(data.choices[0]!.text).toMatch(/mock reply to: Hello matrix completions/);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/completions',
      row,
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
      if (row === 'azure-openai' && 'prompt_filter_results' in chunk) {
        expect([chunk.object, chunk.choices]).toEqual(['', []]);
        annotations++;
        continue;
      }
      expect(chunk.object).toBe('text_completion');
      if (row !== 'perplexity') expect(chunk.usage ?? undefined).toBeUndefined();
      text += chunk.choices[0]?.text ?? '';
    }
    expect(text).toBe(reference.choices[0]!.text);
    expect(annotations).toBe(row === 'azure-openai' ? 1 : 0);
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/completions',
      row,
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

/** Where each OpenAI-style row embeds (Azure: under the deployment, with the api-version as query). */
const EMBEDDINGS_PATH = {
  openai: '/v1/embeddings',
  'openai-compatible': '/compat/v1/embeddings',
  'azure-openai': `/openai/deployments/${AZURE_DEPLOYMENT}/embeddings`,
} as const;

/** Sizes every embedding model of the rows takes (Titan v2: 256, 512 or 1024). */
const DIMENSIONS = 256;

describe.each(EMBEDDING_ROWS)('completions -> %s', (row) => {
  it('is refused cleanly: 400 in shape A naming the model, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await m.openai.completions
      .create({ model: MODEL_OF[row], prompt: 'Hello matrix completions' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: cannotServe(row, '/v1/completions'),
      type: 'invalid_request_error',
      param: 'model',
      code: 'invalid_request',
    });
    expect(calls()).toBe(0);
  });
});

describe.each(ROWS.filter((row) => EMBEDS[row]))('embeddings -> %s', (row) => {
  const model = MODEL_OF[row];

  it('embeds a string as base64 (the SDK default, decoded) and as floats, with dimensions, logged', async () => {
    const calls = upstreamCallsFrom(m);
    const { data, response } = await m.openai.embeddings
      .create({ model, input: 'embed me', dimensions: DIMENSIONS })
      .withResponse();
    expect(calls()).toBeGreaterThan(0);
    const expected = Array.from(mockEmbedding('embed me', DIMENSIONS));
    expect(data.data[0]!.embedding).toHaveLength(DIMENSIONS);
    data.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/embeddings',
      row,
      stream: false,
      usage: { input: data.usage.prompt_tokens, output: 0 },
    });
    const floats = await m.openai.embeddings.create({
      model,
      input: 'embed me',
      encoding_format: 'float',
      dimensions: DIMENSIONS,
    });
    floats.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });

  it('embeds an array of inputs, one vector each, in order', async () => {
    const data = await m.openai.embeddings.create({
      model,
      input: ['one', 'two', 'three'],
      encoding_format: 'float',
      dimensions: DIMENSIONS,
    });
    expect(data.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(data.data[1]!.embedding[0]).toBeCloseTo(mockEmbedding('two', DIMENSIONS)[0]!, 6);
  });
});

describe.each(Object.keys(EMBEDDINGS_PATH) as (keyof typeof EMBEDDINGS_PATH)[])(
  'embeddings -> %s upstream',
  (row) => {
    it('asks for base64 whatever the client asked, with the dimensions', async () => {
      await m.openai.embeddings.create({ model: MODEL_OF[row], input: 'embed me', dimensions: 8 });
      expect(lastUpstream(m, EMBEDDINGS_PATH[row]).body).toMatchObject({
        encoding_format: 'base64',
        dimensions: 8,
      });
    });
  },
);

describe.each(ROWS.filter((row) => !EMBEDS[row]))('embeddings -> %s', (row) => {
  it('is refused cleanly: 400 in shape A, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await m.openai.embeddings
      .create({ model: MODEL_OF[row], input: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: cannotServe(row, '/v1/embeddings'),
      type: 'invalid_request_error',
      param: 'model',
      code: 'invalid_request',
    });
    expect(calls()).toBe(0);
  });
});

describe('models', () => {
  it('lists every model of the key group, whatever its provider type', async () => {
    const page = await m.openai.models.list();
    expect(page.data.map((d) => d.id).sort()).toEqual([...ALL_MODELS].sort());
  });
});
