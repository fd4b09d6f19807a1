import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { GoogleGenAI } from '@google/genai';
import { type MockGoogle, startMockGoogle } from '../mock-google/server.js';
import { startMockProvider, type MockProvider } from '../../index.js';
import { DEFAULT_VERTEX } from './vertex.js';
import { billableCharacters } from './vertex-predict.js';

/** The mock's Vertex `predict` of text embedding models, driven by Google's SDK in Vertex mode and by hand. */
const FEDERATED = 'k8s-projected-token';
const BASE = '/v1/projects/mock-project/locations/us-east5/publishers/google/models';
let mock: MockProvider;
let google: MockGoogle;
let wifFile: string;
let token: string;

beforeAll(async () => {
  google = await startMockGoogle({ federatedToken: FEDERATED });
  mock = await startMockProvider({ vertex: { ...DEFAULT_VERTEX, googleKeys: [...google.signingKeys] } });
  const dir = mkdtempSync(join(tmpdir(), 'mock-vertex-predict-'));
  writeFileSync(join(dir, 'token'), FEDERATED);
  wifFile = join(dir, 'wif.json');
  writeFileSync(wifFile, JSON.stringify(google.externalAccount(join(dir, 'token'))));
  const res = await fetch(
    `${google.url}/computeMetadata/v1/instance/service-accounts/default/token?scopes=https://www.googleapis.com/auth/cloud-platform`,
    { headers: { 'metadata-flavor': 'Google' } },
  );
  token = ((await res.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await Promise.all([mock.close(), google.close()]);
});
beforeEach(() => mock.reset());

async function predict(model: string, body: unknown, auth: string | null = token) {
  const res = await fetch(`${mock.url}${BASE}/${model}:predict`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(auth !== null && { authorization: `Bearer ${auth}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested answers
}

const texts = (...contents: string[]) => contents.map((content) => ({ content }));

describe('mock Vertex AI predict: text embedding models', () => {
  /** Jest's VM realm hides Node's undici dispatcher from the SDK: handing it the realm's fetch skips that lookup. */
  const ai = (): GoogleGenAI =>
    new GoogleGenAI({
      vertexai: true,
      project: 'mock-project',
      location: 'us-east5',
      googleAuthOptions: { keyFilename: wifFile, scopes: ['https://www.googleapis.com/auth/cloud-platform'] },
      httpOptions: { baseUrl: mock.url, fetch },
    });

  it("answers Google's SDK (embedContent on predict): vectors cut to outputDimensionality, token counts, billable characters", async () => {
    const reply = await ai().models.embedContent({
      model: 'text-embedding-005',
      contents: ['What is the meaning of life?', 'Forty two'],
      config: { outputDimensionality: 256, taskType: 'RETRIEVAL_DOCUMENT', title: 'Answers' },
    });
    expect(reply.embeddings).toHaveLength(2);
    expect(reply.embeddings![0]!.values).toHaveLength(256);
    expect(reply.embeddings![0]!.statistics).toEqual({ truncated: false, tokenCount: 7 });
    // 23 + 8: Google bills the characters other than white space.
    expect(reply.metadata?.billableCharacterCount).toBe(31);
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta1${BASE.slice(3)}/text-embedding-005:predict`);
    expect(sent.body).toMatchObject({ parameters: { outputDimensionality: 256 } });
  });

  it('bills characters as Google counts them: code points, white space of any kind left out', () => {
    expect(billableCharacters('a b\tc\nd  \u00e9\u{1F600}')).toBe(6);
    expect(billableCharacters(' \t\n')).toBe(0);
  });

  it('gives the full size by default (768, gemini-embedding-001 3072), the same text the same vector', async () => {
    const a = await predict('text-embedding-005', { instances: texts('same text') });
    const b = await predict('text-multilingual-embedding-002', { instances: texts('same text') });
    const g = await predict('gemini-embedding-001', { instances: texts('same text') });
    expect(a.body.predictions[0].embeddings.values).toHaveLength(768);
    expect(b.body.predictions[0].embeddings.values).toEqual(a.body.predictions[0].embeddings.values);
    expect(g.body.predictions[0].embeddings.values).toHaveLength(3072);
  });

  it('holds each model to its instances per call: one for gemini-embedding-001, 250 for the others', async () => {
    const two = await predict('gemini-embedding-001', { instances: texts('a', 'b') });
    expect(two.status).toBe(400);
    expect(two.body.error.message).toMatch(
      /batchSize value of 2 but the supported range is from 1 \(inclusive\) to 2/,
    );
    const many = Array.from({ length: 251 }, (_, i) => `t${i}`);
    expect((await predict('text-embedding-005', { instances: texts(...many) })).status).toBe(400);
    expect((await predict('text-embedding-005', { instances: texts(...many.slice(1)) })).status).toBe(200);
  });

  it('refuses more than 20,000 tokens a call, and a long text unless autoTruncate cuts it', async () => {
    const long = 'x'.repeat(4 * 2048 + 4);
    const cut = await predict('text-embedding-005', { instances: texts(long) });
    expect(cut.body.predictions[0].embeddings.statistics).toEqual({ truncated: true, token_count: 2048 });
    const refused = await predict('text-embedding-005', {
      instances: texts(long),
      parameters: { autoTruncate: false },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/input token count is 2049 but the model supports up to 2048/);
    const total = await predict('text-embedding-005', {
      instances: texts(...Array.from({ length: 10 }, () => 'y'.repeat(4 * 2048))),
    });
    expect(total.status).toBe(400);
    expect(total.body.error.message).toMatch(/input token count is 20480 but the model supports up to 20000/);
  });

  it("refuses what Vertex does not know, in Google's shape", async () => {
    const cases: [string, unknown, RegExp][] = [
      ['text-embedding-005', { instances: texts('a'), model: 'x' }, /Unknown name "model"/],
      [
        'text-embedding-005',
        { instances: texts('a'), parameters: { dimensions: 8 } },
        /Unknown name "parameters.dimensions"/,
      ],
      ['text-embedding-005', { instances: [{ content: 'a', text: 'b' }] }, /unknown field "text"/],
      ['text-embedding-005', { instances: [{ content: 'a', title: 'T' }] }, /title is only valid/],
      ['text-embedding-005', { instances: [{ content: 'a', task_type: 'SEARCH' }] }, /unsupported task_type/],
      [
        'text-embedding-005',
        { instances: texts('a'), parameters: { outputDimensionality: 769 } },
        /from 1 to 768/,
      ],
      [
        'gemini-embedding-001',
        { instances: texts('a'), parameters: { outputDimensionality: 100 } },
        /from 128 to 3072/,
      ],
      ['text-embedding-005', { instances: [] }, /non-empty list/],
    ];
    for (const [model, body, message] of cases) {
      const res = await predict(model, body);
      expect([res.status, res.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(res.body.error.message).toMatch(message);
    }
  });

  it('checks the token and the model as for every Vertex call', async () => {
    const none = await predict('text-embedding-005', { instances: texts('a') }, null);
    expect([none.status, none.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    expect(none.body.error.details[0].metadata.method).toBe(
      'google.cloud.aiplatform.v1.PredictionService.Predict',
    );
    expect((await predict('text-embedding-005', { instances: texts('a') }, 'forged')).status).toBe(401);
    expect((await predict('text-embedding-999', { instances: texts('a') })).status).toBe(404);
    expect((await predict('gemini-2.5-flash', { instances: texts('a') })).status).toBe(404);
  });
});
