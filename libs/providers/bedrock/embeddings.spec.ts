import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { mockBedrockEmbedding } from '#libs/testing';
import { type DirectAnswer, type DirectPlan } from '../src/adapter.js';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import {
  bedrockAdapter,
  bedrockEmbeddingsAdapter,
  bedrockEmbeddingsRoute,
  COHERE_TEXTS_PER_CALL,
  inputTokensHeader,
  isBedrockEmbeddingModel,
} from './index.js';
import { json } from './spec-support.js';

const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-multilingual-v3';
const ctx = (request: JsonObject): ClientContext => ({
  requestId: 'req_1',
  model: String(request.model),
  created: 1,
  includeUsage: true,
  request,
});

const planOf = (body: JsonObject, model: string, adjust = new AdjustmentLog()): DirectPlan =>
  bedrockEmbeddingsRoute.plan(body, model, adjust);

/** Every call answered by the mock Bedrock (AWS's checks and limits), then the client's body. */
function roundTrip(body: JsonObject, model: string) {
  const plan = planOf(body, model);
  const answers: DirectAnswer[] = plan.calls.map((call) => {
    const reply = mockBedrockEmbedding(call.body, model, false);
    expect(JSON.parse(reply.body.toString('utf8'))).not.toHaveProperty('message');
    return { headers: reply.headers, body: JSON.parse(reply.body.toString('utf8')) as unknown };
  });
  return { plan, reply: plan.answer(answers, ctx(body)) };
}

function refusal(body: JsonObject, model: string): GatewayError {
  try {
    planOf(body, model);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a refusal');
}

const vectors = (body: JsonObject): number[][] =>
  (body.data as { embedding: number[] }[]).map((d) => d.embedding);

describe('bedrock embedding models', () => {
  it('are Titan Text Embeddings V2 and Cohere Embed v3, by any ID form; only embeddings', () => {
    for (const m of [
      TITAN,
      'cohere.embed-english-v3',
      COHERE,
      'arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0',
    ]) {
      expect(isBedrockEmbeddingModel(m)).toBe(true);
      expect(bedrockAdapter.models!.of(m)).toBe(bedrockEmbeddingsAdapter);
    }
    for (const m of ['amazon.titan-embed-text-v1', 'cohere.embed-v4:0', 'amazon.nova-pro-v1:0'])
      expect(isBedrockEmbeddingModel(m)).toBe(false);
    expect(bedrockEmbeddingsAdapter.none).toEqual(expect.arrayContaining(['chat', 'messages', 'responses']));
    expect(bedrockEmbeddingsAdapter.direct?.embeddings).toBe(bedrockEmbeddingsRoute);
  });

  it("reads Bedrock's input token count header", () => {
    expect(inputTokensHeader({ 'x-amzn-bedrock-input-token-count': '42' })).toBe(42);
    expect(inputTokensHeader({})).toBeNull();
    expect(inputTokensHeader({ 'x-amzn-bedrock-input-token-count': 'many' })).toBeNull();
  });
});

describe('Titan Text Embeddings V2', () => {
  it('sends one InvokeModel call per text, dimensions carried, normalized as OpenAI', () => {
    const adjust = new AdjustmentLog();
    const plan = planOf(json('titan-embed-request.in.json'), TITAN, adjust);
    expect(plan.calls.map((c) => c.path)).toEqual(
      Array(2).fill('/model/amazon.titan-embed-text-v2%3A0/invoke'),
    );
    expect(plan.calls.map((c) => c.body)).toEqual(json('titan-embed-request.out.json'));
    expect(adjust.items).toEqual(['dropped user']);
  });

  it("answers in OpenAI's shape, the calls' token counts summed", () => {
    const request = { model: 'titan-embed', input: ['Hello Bedrock', 'Second text'] };
    const plan = planOf(request, TITAN);
    const bodies = json<unknown[]>('titan-embed-response.in.json');
    const reply = plan.answer(
      bodies.map((body) => ({ headers: {}, body })),
      ctx(request),
    );
    expect(reply.body).toEqual(json('titan-embed-response.out.json'));
    expect(reply.usage?.inputTokens).toBe(7);
  });

  it('passes the mock Bedrock for each size, in order', () => {
    for (const dimensions of [256, 512, 1024]) {
      const input = ['alpha', 'beta beta', 'gamma gamma gamma'];
      const { reply } = roundTrip({ model: 't', input, dimensions }, TITAN);
      expect(vectors(reply.body).map((v) => v.length)).toEqual([dimensions, dimensions, dimensions]);
      const alone = roundTrip({ model: 't', input: 'beta beta', dimensions }, TITAN).reply;
      expect(vectors(reply.body)[1]).toEqual(vectors(alone.body)[0]);
    }
  });

  it('refuses a size Titan does not give, naming dimensions', () => {
    const err = refusal({ model: 't', input: 'x', dimensions: 768 }, TITAN);
    expect([err.status, err.details.param]).toEqual([400, 'dimensions']);
    expect(err.message).toMatch(/256, 512 or 1024/);
  });
});

describe('Cohere Embed v3', () => {
  it('sends up to 96 texts per call, as search documents, never truncated silently', () => {
    expect(planOf(json('cohere-embed-request.in.json'), COHERE).calls.map((c) => c.body)).toEqual([
      json('cohere-embed-request.out.json'),
    ]);
    const input = Array.from({ length: 200 }, (_, i) => `text ${i}`);
    const plan = planOf({ model: 'c', input }, COHERE);
    expect(plan.calls.map((c) => (c.body.texts as string[]).length)).toEqual([
      COHERE_TEXTS_PER_CALL,
      COHERE_TEXTS_PER_CALL,
      8,
    ]);
    const { reply } = roundTrip({ model: 'c', input }, COHERE);
    expect(vectors(reply.body)).toHaveLength(200);
    expect(vectors(reply.body)[150]).toEqual(
      vectors(roundTrip({ model: 'c', input: 'text 150' }, COHERE).reply.body)[0],
    );
  });

  it("takes the usage from Bedrock's header, and none when a call lacks it", () => {
    const request = { model: 'cohere-embed', input: ['Hello Bedrock', 'Second text'] };
    const plan = planOf(request, COHERE);
    const body = json('cohere-embed-response.in.json');
    const reply = plan.answer([{ headers: { 'x-amzn-bedrock-input-token-count': '6' }, body }], ctx(request));
    expect(reply.body).toEqual(json('cohere-embed-response.out.json'));
    expect(reply.usage?.inputTokens).toBe(6);
    expect(plan.answer([{ headers: {}, body }], ctx(request)).usage).toBeNull();
  });

  it('refuses another size, a text over 2,048 characters and token ids, naming the field', () => {
    expect(refusal({ model: 'c', input: 'x', dimensions: 512 }, COHERE).details.param).toBe('dimensions');
    const adjust = new AdjustmentLog();
    planOf({ model: 'c', input: 'x', dimensions: 1024 }, COHERE, adjust);
    expect(adjust.items).toEqual(["dimensions 1024 as the model's own size"]);
    const long = refusal({ model: 'c', input: ['ok', 'é'.repeat(2049)] }, COHERE);
    expect([long.details.param, long.message]).toEqual([
      'input[1]',
      expect.stringMatching(/2049 characters/),
    ]);
    expect(() => planOf({ model: 'c', input: ['ok', '😀'.repeat(2048)] }, COHERE)).not.toThrow();
    expect(refusal({ model: 'c', input: [1, 2] }, COHERE).details.param).toBe('input');
  });

  it('fails an answer with fewer embeddings than texts as the upstream', () => {
    const request = { model: 'c', input: ['a', 'b'] };
    const plan = planOf(request, COHERE);
    const short = { embeddings: [[0.1]], id: 'x', response_type: 'embeddings_floats', texts: ['a'] };
    expect(() => plan.answer([{ headers: {}, body: short }], ctx(request))).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });
});
