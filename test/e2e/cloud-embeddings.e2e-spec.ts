import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { loadConfigFile } from '#libs/gateway-config';
import {
  DEFAULT_VERTEX_BEHAVIOUR,
  MOCK_AWS_CREDENTIAL,
  MOCK_BEDROCK_API_KEY,
  type MockBedrock,
  type MockGoogle,
  mockTokensOf,
  startMockBedrock,
  startMockGoogle,
  verifyGoogleToken,
} from '#libs/testing';
import { FAST_TEST_SETTINGS, type Gateway, startGateway } from '../support/gateway.js';

/**
 * OpenAI embeddings clients (the official SDK) on the clouds' embedding models: Vertex AI's
 * text-embedding-005 and gemini-embedding-001 through `predict` (a keyless provider, Google
 * tokens by workload identity federation), Bedrock's Titan Text Embeddings V2 and Cohere Embed v3
 * through InvokeModel (SigV4, and a second provider with a Bedrock API key to fail over to).
 * Float and base64, one input and batches, `dimensions`, the refusals in OpenAI's shape naming
 * the field, and each charge equal to the published price (config/gateway.yaml) times the usage:
 * tokens for most, the characters Vertex bills (white space not counted) for text-embedding-005.
 */
const FEDERATED = 'k8s-projected-service-account-token';
const REGION = 'us-west-2';
const TEXT = 'text-embedding-005';
const GEMINI = 'gemini-embedding-001';
const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';
const PREDICT = '/v1/projects/mock-project/locations/us-east5/publishers/google/models';
const shipped = new Map(loadConfigFile('config/gateway.yaml').models.map((m) => [m.id, m]));
const model = (id: string) => shipped.get(id)!;
/** Nanocredits per input token at the shipped price (credits per million tokens). */
const nanosPerToken = (id: string): number => model(id).pricing.input_per_million * 1000;
/** Nanocredits per billed character at the shipped fee (credits per thousand characters). */
const nanosPerCharacter = (id: string): number =>
  (model(id).pricing.fees_per_thousand?.input_characters ?? 0) * 1e6;

let google: MockGoogle;
let bedrock: MockBedrock;
let gw: Gateway;
let openai: OpenAI;
let key: string;

beforeAll(async () => {
  google = await startMockGoogle({ federatedToken: FEDERATED });
  bedrock = await startMockBedrock({ region: REGION });
  const dir = mkdtempSync(join(tmpdir(), 'e2e-cloud-embeddings-'));
  writeFileSync(join(dir, 'token'), FEDERATED);
  writeFileSync(join(dir, 'wif.json'), JSON.stringify(google.externalAccount(join(dir, 'token'))));
  gw = await startGateway(
    'cloud-embeddings',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      providers: [
        {
          id: 'vx',
          type: 'vertex',
          project: 'mock-project',
          location: 'us-east5',
          base_url: mockUrl,
          models: [TEXT, GEMINI],
        },
        { id: 'br-sigv4', type: 'bedrock', region: REGION, base_url: bedrock.url, models: [TITAN, COHERE] },
        {
          id: 'br-key',
          type: 'bedrock',
          region: REGION,
          base_url: bedrock.url,
          api_key_env: 'AWS_BEARER_TOKEN_BEDROCK',
          priority: 1,
          models: [TITAN],
        },
      ],
      models: [model(TEXT), model(GEMINI), model(TITAN), model(COHERE)],
      groups: { default: [TEXT, GEMINI, TITAN, COHERE] },
    }),
    {
      env: {
        GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'wif.json'),
        AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
        AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
        AWS_BEARER_TOKEN_BEDROCK: MOCK_BEDROCK_API_KEY,
      },
      mock: { vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [...google.signingKeys] } },
    },
  );
  key = (await gw.createKey()).raw;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await google?.close();
  await bedrock?.close();
});

const vertexCalls = (m: string) => gw.mock.requests.filter((r) => r.path === `${PREDICT}/${m}:predict`);
const bedrockCalls = (m: string) =>
  bedrock.requests.filter((r) => r.path === `/model/${encodeURIComponent(m)}/invoke`);
const length = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const tokens = (texts: readonly string[]): number => texts.reduce((s, t) => s + mockTokensOf(t), 0);

async function create(body: OpenAI.EmbeddingCreateParams) {
  const { data, response } = await openai.embeddings.create(body).withResponse();
  const row = await gw.logRow(response.headers.get('x-request-id')!);
  return { data, response, row };
}

async function refusal(body: Record<string, unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await openai.embeddings
    .create(body as unknown as OpenAI.EmbeddingCreateParams)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

describe('Vertex AI embedding models', () => {
  it('embeds one text through predict with a verified Google token, charged the shipped price times the billed characters', async () => {
    const input = 'Hello Vertex embeddings';
    const { data, row } = await create({ model: TEXT, input, encoding_format: 'float' });
    expect(data.data).toHaveLength(1);
    expect(data.data[0]!.embedding).toHaveLength(768);
    expect(data.model).toBe(TEXT);
    expect(data.usage).toEqual({ prompt_tokens: mockTokensOf(input), total_tokens: mockTokensOf(input) });
    const sent = vertexCalls(TEXT).at(-1)!;
    expect(sent.body).toEqual({ instances: [{ content: input }], parameters: { autoTruncate: false } });
    const verdict = await verifyGoogleToken(String(sent.headers.authorization).slice(7), google.signingKeys);
    expect(verdict.ok).toBe(true);
    expect(row.provider_id).toBe('vx');
    expect([Number(row.input_tokens), Number(row.output_tokens)]).toEqual([mockTokensOf(input), 0]);
    // 21 characters other than white space, at $0.000025 per 1,000 (25 nanocredits each).
    expect(Number(row.input_characters)).toBe(21);
    expect(nanosPerCharacter(TEXT)).toBe(25);
    expect(Number(row.cost_nanos)).toBe(21 * 25);
    expect(row.usage_estimated).toBe(false);
  });

  it("decodes the SDK's default base64 to the float answer, shortened vectors at length 1, the shortening recorded", async () => {
    const input = ['first text', 'second text', 'third, a longer text'];
    const { data, response, row } = await create({ model: TEXT, input, dimensions: 256 });
    const floats = (
      await openai.embeddings.create({ model: TEXT, input, dimensions: 256, encoding_format: 'float' })
    ).data;
    expect(data.data.map((d) => d.index)).toEqual([0, 1, 2]);
    for (const [i, d] of data.data.entries()) {
      expect(d.embedding).toHaveLength(256);
      expect(length(d.embedding)).toBeCloseTo(1, 5);
      d.embedding.forEach((v, j) => expect(v).toBeCloseTo(floats[i]!.embedding[j]!, 6));
    }
    expect(vertexCalls(TEXT).at(-1)!.body).toMatchObject({ parameters: { outputDimensionality: 256 } });
    expect(response.headers.get('x-gateway-adjustments')).toMatch(/dimensions as outputDimensionality/);
    expect(row.adjustments).toEqual([
      'dimensions as outputDimensionality (the shortened vectors scaled to length 1)',
    ]);
    // 9 + 10 + 17 billed characters.
    expect(Number(row.input_characters)).toBe(36);
    expect(Number(row.cost_nanos)).toBe(36 * nanosPerCharacter(TEXT));
  });

  it('sends gemini-embedding-001 one text per call and answers in order, the usage summed', async () => {
    const before = vertexCalls(GEMINI).length;
    const input = ['alpha', 'beta beta', 'gamma gamma gamma', 'delta'];
    const { data, row } = await create({ model: GEMINI, input, encoding_format: 'float' });
    const calls = vertexCalls(GEMINI).slice(before);
    expect(calls.map((c) => (c.body as { instances: unknown[] }).instances.length)).toEqual([1, 1, 1, 1]);
    const alone = await openai.embeddings.create({
      model: GEMINI,
      input: 'gamma gamma gamma',
      encoding_format: 'float',
    });
    expect(data.data[2]!.embedding).toEqual(alone.data[0]!.embedding);
    expect(data.data[0]!.embedding).toHaveLength(3072);
    expect(data.usage.prompt_tokens).toBe(tokens(input));
    expect(Number(row.cost_nanos)).toBe(tokens(input) * nanosPerToken(GEMINI));
  });

  it('cuts a batch past 250 texts into calls Vertex takes, the vectors in the order sent', async () => {
    const before = vertexCalls(TEXT).length;
    const input = Array.from({ length: 300 }, (_, i) => `document number ${i}`);
    const { data, row } = await create({ model: TEXT, input, encoding_format: 'float' });
    const calls = vertexCalls(TEXT).slice(before);
    expect(calls.map((c) => (c.body as { instances: unknown[] }).instances.length)).toEqual([250, 50]);
    expect(data.data).toHaveLength(300);
    const one = await openai.embeddings.create({ model: TEXT, input: input[271]!, encoding_format: 'float' });
    expect(data.data[271]!.embedding).toEqual(one.data[0]!.embedding);
    expect(data.usage.prompt_tokens).toBe(tokens(input));
    // Summed over both calls: 'documentnumber' and the number, 10 x 15 + 90 x 16 + 200 x 17.
    expect(Number(row.input_characters)).toBe(4990);
    expect(Number(row.cost_nanos)).toBe(4990 * nanosPerCharacter(TEXT));
  });

  it("refuses what cannot be served in OpenAI's shape, naming the field, before any call", async () => {
    // Counted by POSTs: the router's probes (GETs) reach the same mock meanwhile.
    const posts = () => gw.mock.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const tooMany = await refusal({ model: TEXT, input: Array.from({ length: 2049 }, () => 'x') });
    expect([tooMany.status, tooMany.param, tooMany.type]).toEqual([400, 'input', 'invalid_request_error']);
    const dims = await refusal({ model: TEXT, input: 'x', dimensions: 1024 });
    expect([dims.status, dims.param]).toEqual([400, 'dimensions']);
    expect(dims.message).toMatch(/between 1 and 768/);
    const small = await refusal({ model: GEMINI, input: 'x', dimensions: 64 });
    expect(small.param).toBe('dimensions');
    const ids = await refusal({ model: TEXT, input: [101, 102] });
    expect([ids.status, ids.param]).toEqual([400, 'input']);
    const unknown = await refusal({ model: TEXT, input: 'x', task_type: 'RETRIEVAL_QUERY' });
    expect([unknown.status, unknown.param]).toEqual([400, 'task_type']);
    expect(posts()).toBe(before);
  });

  it("passes Vertex's own refusal of an over-long text as OpenAI's 400, never a silent cut", async () => {
    const err = await refusal({ model: TEXT, input: ['short', 'y'.repeat(4 * 2050)] });
    expect(err.status).toBe(400);
    expect(err.message).toMatch(
      /Vertex AI refused the request: .*input token count is 2050 but the model supports up to 2048/,
    );
  });

  it('serves nothing but embeddings on an embedding model', async () => {
    const err: unknown = await openai.chat.completions
      .create({ model: TEXT, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(
      /cannot serve \/v1\/chat\/completions/,
    );
  });
});

describe('Bedrock embedding models', () => {
  it('embeds one text with Titan V2, signed with SigV4, charged the shipped price times the tokens', async () => {
    const input = 'Hello Bedrock embeddings';
    const { data, row } = await create({ model: TITAN, input, dimensions: 512, encoding_format: 'float' });
    expect(data.data[0]!.embedding).toHaveLength(512);
    expect(length(data.data[0]!.embedding)).toBeCloseTo(1, 5);
    expect(data.usage.prompt_tokens).toBe(mockTokensOf(input));
    const sent = bedrockCalls(TITAN).at(-1)!;
    expect(sent.body).toEqual({ inputText: input, normalize: true, dimensions: 512 });
    expect(String(sent.headers.authorization)).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${MOCK_AWS_CREDENTIAL.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request`,
      ),
    );
    expect(row.provider_id).toBe('br-sigv4');
    expect(Number(row.cost_nanos)).toBe(mockTokensOf(input) * nanosPerToken(TITAN));
  });

  it('sends a Titan batch as one signed call per text, base64 decoded by the SDK, the usage summed', async () => {
    const before = bedrockCalls(TITAN).length;
    const input = ['one', 'two two', 'three three three', 'four', 'five five'];
    const { data, row } = await create({ model: TITAN, input });
    const calls = bedrockCalls(TITAN).slice(before);
    expect(calls.map((c) => (c.body as { inputText: string }).inputText).sort()).toEqual([...input].sort());
    expect(new Set(calls.map((c) => String(c.headers.authorization))).size).toBe(5);
    const alone = await openai.embeddings.create({
      model: TITAN,
      input: 'three three three',
      encoding_format: 'float',
    });
    data.data[2]!.embedding.forEach((v, j) => expect(v).toBeCloseTo(alone.data[0]!.embedding[j]!, 6));
    expect(data.usage.prompt_tokens).toBe(tokens(input));
    expect(Number(row.cost_nanos)).toBe(tokens(input) * nanosPerToken(TITAN));
  });

  it("sends Cohere 96 texts a call as search documents, the usage from Bedrock's token count header", async () => {
    const before = bedrockCalls(COHERE).length;
    const input = Array.from({ length: 100 }, (_, i) => `passage ${i} of the corpus`);
    const { data, row } = await create({ model: COHERE, input, encoding_format: 'float' });
    const calls = bedrockCalls(COHERE).slice(before);
    expect(calls.map((c) => (c.body as { texts: string[] }).texts.length)).toEqual([96, 4]);
    expect(calls[0]!.body).toMatchObject({ input_type: 'search_document', truncate: 'NONE' });
    expect(data.data.map((d) => d.embedding.length)).toEqual(Array(100).fill(1024));
    expect(data.usage.prompt_tokens).toBe(tokens(input));
    expect(Number(row.input_tokens)).toBe(tokens(input));
    expect(Number(row.cost_nanos)).toBe(tokens(input) * nanosPerToken(COHERE));
  });

  it("refuses a size or text the model cannot take in OpenAI's shape, and passes Bedrock's own refusal", async () => {
    const titan = await refusal({ model: TITAN, input: 'x', dimensions: 300 });
    expect([titan.status, titan.param]).toEqual([400, 'dimensions']);
    const cohere = await refusal({ model: COHERE, input: 'x', dimensions: 512 });
    expect([cohere.status, cohere.param]).toEqual([400, 'dimensions']);
    const long = await refusal({ model: COHERE, input: ['ok', 'z'.repeat(2049)] });
    expect([long.status, long.param]).toEqual([400, 'input[1]']);
    const tooMany = await refusal({ model: COHERE, input: Array.from({ length: 2049 }, () => 'x') });
    expect([tooMany.status, tooMany.param]).toEqual([400, 'input']);
    const tokensOver = await refusal({ model: TITAN, input: 'word '.repeat(8000) });
    expect(tokensOver.status).toBe(400);
    expect(tokensOver.message).toMatch(/Too many input tokens\. Max input tokens: 8192/);
  });

  it('fails a throttled batch over to the next provider as a whole', async () => {
    bedrock.throttleNext(1);
    const input = ['failover one', 'failover two', 'failover three'];
    const { data, row } = await create({ model: TITAN, input, encoding_format: 'float' });
    expect(data.data).toHaveLength(3);
    expect(row.provider_id).toBe('br-key');
    expect(row.attempts.map((a) => [a.providerId, a.status])).toEqual([
      ['br-sigv4', 429],
      ['br-key', 200],
    ]);
    expect(Number(row.cost_nanos)).toBe(tokens(input) * nanosPerToken(TITAN));
  });
});
