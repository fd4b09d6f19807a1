import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { mockVertexPredict } from '#libs/testing';
import { type DirectPlan } from '../src/adapter.js';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import {
  batchesOf,
  CALL_BYTES,
  isVertexEmbeddingModel,
  vertexAdapterOf,
  vertexEmbeddingsAdapter,
  vertexEmbeddingsRoute,
} from './index.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as JsonObject;

const TEXT = 'text-embedding-005';
const GEMINI = 'gemini-embedding-001';
const ctx = (request: JsonObject): ClientContext => ({
  requestId: 'req_1',
  model: 'vx-embed',
  created: 1,
  includeUsage: true,
  request,
});

const planOf = (body: JsonObject, model = TEXT, adjust = new AdjustmentLog()): DirectPlan =>
  vertexEmbeddingsRoute.plan(body, model, adjust);

/** The plan's calls answered by the mock Vertex (which checks them as Vertex does), then the client's body. */
function roundTrip(body: JsonObject, model = TEXT) {
  const plan = planOf(body, model);
  const answers = plan.calls.map((call) => {
    const reply = mockVertexPredict(model, call.body);
    expect(reply.status).toBe(200);
    return { headers: {}, body: reply.body };
  });
  return { plan, reply: plan.answer(answers, ctx(body)) };
}

function refusal(body: JsonObject, model = TEXT): GatewayError {
  try {
    planOf(body, model);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a refusal');
}

const length = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('vertex embedding models', () => {
  it('are told from the Gemini models by their ID, and serve embeddings only', () => {
    for (const m of [TEXT, 'text-multilingual-embedding-002', GEMINI, 'textembedding-gecko@003'])
      expect(isVertexEmbeddingModel(m)).toBe(true);
    for (const m of ['gemini-2.5-flash', 'multimodalembedding@001', 'claude-sonnet-4@20250514'])
      expect(isVertexEmbeddingModel(m)).toBe(false);
    expect(vertexAdapterOf(TEXT)).toBe(vertexEmbeddingsAdapter);
    expect(vertexEmbeddingsAdapter.direct?.embeddings).toBe(vertexEmbeddingsRoute);
    expect(vertexEmbeddingsAdapter.none).toContain('chat');
    expect(vertexEmbeddingsAdapter.none).not.toContain('embeddings');
  });
});

describe('OpenAI embeddings -> predict', () => {
  it('sends the texts as instances, dimensions as outputDimensionality, no silent truncation', () => {
    const adjust = new AdjustmentLog();
    const plan = planOf(fixture('embeddings-request.in.json'), TEXT, adjust);
    expect(plan.calls).toHaveLength(1);
    expect(plan.calls[0]!.path).toBe('/publishers/google/models/text-embedding-005:predict');
    expect(plan.calls[0]!.body).toEqual(fixture('embeddings-request.out.json'));
    expect(adjust.items).toEqual([
      'dropped user',
      'dimensions as outputDimensionality (the shortened vectors scaled to length 1)',
    ]);
  });

  it('reads the answer as OpenAI writes it, usage from the token counts and billable characters', () => {
    const request = { model: 'vx-embed', input: ['The quick brown fox', 'jumps over the lazy dog'] };
    const plan = planOf(request);
    const reply = plan.answer([{ headers: {}, body: fixture('embeddings-response.in.json') }], ctx(request));
    expect(reply.body).toEqual(fixture('embeddings-response.out.json'));
    expect(reply.usage?.inputTokens).toBe(11);
    expect(reply.usage?.outputTokens).toBe(0);
    // 16 + 19 characters other than white space, as Google counts them.
    expect(reply.usage?.inputCharacters).toBe(35);
  });

  it('counts no characters when Vertex reports none (a model billed per token)', () => {
    const request = { model: 'vx-embed', input: ['The quick brown fox', 'jumps over the lazy dog'] };
    const { metadata: _, ...body } = fixture('embeddings-response.in.json');
    const reply = planOf(request).answer([{ headers: {}, body }], ctx(request));
    expect(reply.usage?.inputTokens).toBe(11);
    expect(reply.usage).not.toHaveProperty('inputCharacters');
  });

  it('answers base64 as the float32 little-endian bytes of each vector', () => {
    const request = { model: 'vx-embed', input: 'one text', encoding_format: 'base64' };
    const { reply } = roundTrip(request);
    const floats = roundTrip({ ...request, encoding_format: 'float' }).reply.body;
    const encoded = (reply.body.data as { embedding: string }[])[0]!.embedding;
    const bytes = Buffer.from(encoded, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    const expected = (floats.data as { embedding: number[] }[])[0]!.embedding;
    expect(decoded).toHaveLength(768);
    decoded.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });

  it('scales shortened vectors back to length 1, as OpenAI gives them', () => {
    const { reply } = roundTrip({ model: 'm', input: ['a', 'b'], dimensions: 64 });
    for (const d of reply.body.data as { embedding: number[] }[]) {
      expect(d.embedding).toHaveLength(64);
      expect(length(d.embedding)).toBeCloseTo(1, 10);
    }
  });

  it('sends gemini-embedding-001 one text per call, in order, the usage summed', () => {
    const input = ['first text', 'second, longer text', 'third'];
    const { plan, reply } = roundTrip({ model: 'g', input }, GEMINI);
    expect(plan.calls.map((c) => (c.body.instances as { content: string }[])[0]!.content)).toEqual(input);
    expect(plan.concurrency).toBeGreaterThan(1);
    const single = input.map((text) => roundTrip({ model: 'g', input: text }, GEMINI).reply);
    expect((reply.body.data as { embedding: number[] }[]).map((d) => d.embedding)).toEqual(
      single.map((r) => (r.body.data as { embedding: number[] }[])[0]!.embedding),
    );
    expect(reply.usage?.inputTokens).toBe(single.reduce((s, r) => s + r.usage!.inputTokens, 0));
  });

  it('cuts a batch at 250 texts and at 20,000 bytes a call, so no call passes what Vertex takes', () => {
    const many = Array.from({ length: 600 }, (_, i) => `text ${i}`);
    expect(batchesOf(many, 250).map((b) => b.length)).toEqual([250, 250, 100]);
    const long = 'x'.repeat(CALL_BYTES / 4);
    expect(batchesOf([long, long, long, long, long], 250).map((b) => b.length)).toEqual([4, 1]);
    const huge = 'y'.repeat(CALL_BYTES * 2);
    expect(batchesOf(['a', huge, 'b'], 250).map((b) => b.length)).toEqual([1, 1, 1]);
    const { plan, reply } = roundTrip({ model: 'm', input: many });
    expect(plan.calls).toHaveLength(3);
    expect(reply.body.data as unknown[]).toHaveLength(600);
    expect((reply.body.data as { index: number }[]).map((d) => d.index)).toEqual(many.map((_, i) => i));
    // 'text' and the number, the space not billed: 10 x 5 + 90 x 6 + 500 x 7, over the 3 calls.
    expect(reply.usage?.inputCharacters).toBe(4090);
  });

  it('refuses what Vertex or OpenAI would, naming the field', () => {
    expect(refusal({ model: 'm', input: 'x', dimensions: 769 }).details.param).toBe('dimensions');
    expect(refusal({ model: 'm', input: 'x', dimensions: 64 }, GEMINI).details.param).toBe('dimensions');
    expect(refusal({ model: 'm', input: 'x', dimensions: 0 }).details.param).toBe('dimensions');
    expect(refusal({ model: 'm', input: 'x', encoding_format: 'int8' }).details.param).toBe(
      'encoding_format',
    );
    expect(refusal({ model: 'm', input: 'x', task_type: 'RETRIEVAL_QUERY' }).details.param).toBe('task_type');
    expect(refusal({ model: 'm', input: [1, 2, 3] }).message).toMatch(/token-id inputs/);
    expect(refusal({ model: 'm', input: [[1, 2], [3]] }).details.param).toBe('input');
    expect(refusal({ model: 'm', input: [] }).details.param).toBe('input');
    expect(refusal({ model: 'm', input: ['a', ''] }).details.param).toBe('input[1]');
    const tooMany = refusal({ model: 'm', input: Array.from({ length: 2049 }, () => 'a') });
    expect([tooMany.status, tooMany.details.param]).toEqual([400, 'input']);
  });

  it('fails an answer of another shape or size as the upstream, not the client', () => {
    const request = { model: 'm', input: ['a', 'b'] };
    const plan = planOf(request);
    const one = { predictions: [{ embeddings: { values: [0.1] } }] };
    expect(() => plan.answer([{ headers: {}, body: one }], ctx(request))).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
    expect(() => plan.answer([{ headers: {}, body: { error: {} } }], ctx(request))).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });
});
