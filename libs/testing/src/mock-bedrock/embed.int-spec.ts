import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { MOCK_AWS_CREDENTIAL, MOCK_BEDROCK_API_KEY, type MockBedrock, startMockBedrock } from './server.js';

/** The mock's InvokeModel of Bedrock's text embedding models, signed with SigV4 as the gateway signs. */
const REGION = 'us-west-2';
const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';
let mock: MockBedrock;

beforeAll(async () => {
  mock = await startMockBedrock({ region: REGION });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const path = (model: string, stream = false): string =>
  `/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;

async function invoke(model: string, body: unknown, opts: { secret?: string; stream?: boolean } = {}) {
  const url = new URL(mock.url + path(model, opts.stream));
  const text = JSON.stringify(body);
  const signer = new SignatureV4({
    credentials: {
      ...MOCK_AWS_CREDENTIAL,
      secretAccessKey: opts.secret ?? MOCK_AWS_CREDENTIAL.secretAccessKey,
    },
    region: REGION,
    service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/json', accept: 'application/json' },
    body: text,
  });
  const res = await fetch(url, {
    method: 'POST',
    headers: signed.headers as Record<string, string>,
    body: text,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested answers
}

const length = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('mock Bedrock: Titan Text Embeddings V2', () => {
  it("answers one text with its vector, Bedrock's token count in the body and the header", async () => {
    const res = await invoke(TITAN, { inputText: 'Hello Bedrock', dimensions: 256, normalize: true });
    expect(res.status).toBe(200);
    expect(res.body.embedding).toHaveLength(256);
    expect(length(res.body.embedding)).toBeCloseTo(1, 5);
    expect(res.body.embeddingsByType.float).toEqual(res.body.embedding);
    expect(res.body.inputTextTokenCount).toBe(4);
    expect(res.headers.get('x-amzn-bedrock-input-token-count')).toBe('4');
    const both = await invoke(TITAN, { inputText: 'Hello Bedrock', embeddingTypes: ['float', 'binary'] });
    expect(both.body.embedding).toHaveLength(1024);
    expect(new Set(both.body.embeddingsByType.binary)).toEqual(new Set([0, 1]));
  });

  it('refuses what AWS refuses: other keys, sizes, a missing or overlong text, streaming', async () => {
    const cases: [unknown, RegExp][] = [
      [{ inputText: 'x', texts: ['x'] }, /extraneous key \[texts\] is not permitted/],
      [{ inputText: 'x', dimensions: 768 }, /#\/dimensions: 768 is not a valid enum value/],
      [{ dimensions: 256 }, /required key \[inputText\] not found/],
      [{ inputText: '' }, /expected minLength: 1/],
      [{ inputText: 'x'.repeat(50_001) }, /expected maxLength: 50000/],
      [{ inputText: 'word '.repeat(8000) }, /Too many input tokens\. Max input tokens: 8192/],
      [{ inputText: 'x', embeddingTypes: ['int8'] }, /embeddingTypes/],
    ];
    for (const [body, message] of cases) {
      const res = await invoke(TITAN, body);
      expect(res.status).toBe(400);
      expect(res.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
      expect(res.body.message).toMatch(message);
    }
    const streamed = await invoke(TITAN, { inputText: 'x' }, { stream: true });
    expect(streamed.status).toBe(400);
  });
});

describe('mock Bedrock: Cohere Embed v3', () => {
  it('answers up to 96 texts, floats or by type, the tokens in the header only', async () => {
    const res = await invoke(COHERE, { texts: ['one', 'two two'], input_type: 'search_document' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response_type: 'embeddings_floats', texts: ['one', 'two two'] });
    expect(res.body.embeddings.map((e: number[]) => e.length)).toEqual([1024, 1024]);
    expect(res.body).not.toHaveProperty('inputTextTokenCount');
    expect(res.headers.get('x-amzn-bedrock-input-token-count')).toBe('3');
    const typed = await invoke(COHERE, {
      texts: ['one'],
      input_type: 'search_query',
      embedding_types: ['float', 'int8', 'ubinary'],
    });
    expect(typed.body.response_type).toBe('embeddings_by_type');
    expect(typed.body.embeddings.float[0]).toEqual(res.body.embeddings[0]);
    expect(typed.body.embeddings.int8[0]).toHaveLength(1024);
    expect(typed.body.embeddings.ubinary[0]).toHaveLength(128);
  });

  it('refuses what AWS refuses: no input_type, other keys, 97 texts, 2,049 characters, an over-long text', async () => {
    const cases: [unknown, RegExp][] = [
      [{ texts: ['x'] }, /required key \[input_type\] not found/],
      [{ texts: ['x'], input_type: 'search_document', dimensions: 1024 }, /extraneous key \[dimensions\]/],
      [{ texts: ['x'], input_type: 'documents' }, /input_type: documents is not a valid enum value/],
      [
        { texts: Array(97).fill('x'), input_type: 'clustering' },
        /expected maximum item count: 96, found: 97/,
      ],
      [
        { texts: ['ok', 'x'.repeat(2049)], input_type: 'clustering' },
        /#\/texts\/1: expected maxLength: 2048/,
      ],
      [
        { texts: ['漢'.repeat(600)], input_type: 'clustering' },
        /600 tokens long, more than the model's maximum of 512/,
      ],
      [{ texts: ['x'], input_type: 'clustering', truncate: 'MIDDLE' }, /truncate: MIDDLE/],
    ];
    for (const [body, message] of cases) {
      const res = await invoke(COHERE, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const cut = await invoke(COHERE, {
      texts: ['漢'.repeat(600)],
      input_type: 'clustering',
      truncate: 'END',
    });
    expect([cut.status, cut.headers.get('x-amzn-bedrock-input-token-count')]).toEqual([200, '512']);
  });

  it('checks the signature or key first, as for every model, and refuses Converse for an embedding model', async () => {
    const forged = await invoke(COHERE, { texts: ['x'], input_type: 'clustering' }, { secret: 'wrong' });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    const keyed = await fetch(mock.url + path(TITAN), {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputText: 'x' }),
    });
    expect(keyed.status).toBe(200);
    const converse = await fetch(`${mock.url}/model/${encodeURIComponent(TITAN)}/converse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    });
    expect(converse.status).toBe(400);
  });
});
