import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  MOCK_AWS_CREDENTIAL,
  MOCK_AWS_PRINCIPAL,
  MOCK_BEDROCK_API_KEY,
  type MockBedrock,
  startMockBedrock,
} from '#libs/testing';
import { SigV4Auth } from './credential.js';
import { LIST_FOUNDATION_MODELS_PATH } from './probe.js';

/**
 * The mock's control plane and its IAM policy, driven the way the gateway drives them: the
 * router's probe signs its GET with the gateway's own SigV4 signer, or sends a Bedrock API key.
 */
const REGION = 'eu-west-1';
let mock: MockBedrock;
let signer: SigV4Auth;

beforeAll(async () => {
  mock = await startMockBedrock({ region: REGION });
  signer = new SigV4Auth(() => Promise.resolve(MOCK_AWS_CREDENTIAL), REGION);
});
afterAll(async () => {
  signer.close();
  await mock.close();
});
beforeEach(() => mock.reset());

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly body: Record<string, unknown>;
}

async function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = '',
): Promise<Answer> {
  const res = await fetch(url, { method, headers, ...(method === 'GET' ? {} : { body }) });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('x-amzn-errortype')?.split(':')[0] ?? null,
    // A stream's answer is event-stream frames, not JSON.
    body:
      res.headers.get('content-type') === 'application/json'
        ? (JSON.parse(text) as Record<string, unknown>)
        : {},
  };
}

/** As the probe sends it: signed by the gateway's signer over its method, URL and headers. */
async function signed(url: string, method = 'GET', body = '', auth: SigV4Auth = signer): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['content-type'] = 'application/json';
  Object.assign(headers, await auth.headers({ method, url, headers, body }));
  return send(url, method, headers, body);
}

const listUrl = (query = ''): string => `${mock.controlUrl}${LIST_FOUNDATION_MODELS_PATH}${query}`;
const CONVERSE = `/model/${encodeURIComponent('us.anthropic.claude-sonnet-4-5-20250929-v1:0')}/converse`;
const HELLO = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hello' }] }] });

describe("mock Bedrock control plane: ListFoundationModels, the router's probe", () => {
  it('lists the region’s foundation models to a request the gateway signed, and filters as AWS does', async () => {
    const all = await signed(listUrl());
    expect(all.status).toBe(200);
    const models = all.body.modelSummaries as Array<Record<string, unknown>>;
    expect(models.map((m) => m.modelId)).toContain('anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(models[0]).toMatchObject({
      modelArn: `arn:aws:bedrock:${REGION}::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0`,
      providerName: 'Anthropic',
      modelLifecycle: { status: 'ACTIVE' },
    });
    const embeddings = await signed(listUrl('?byOutputModality=EMBEDDING'));
    expect((embeddings.body.modelSummaries as Array<{ modelId: string }>).map((m) => m.modelId)).toEqual([
      'amazon.titan-embed-text-v2:0',
      'cohere.embed-english-v3',
    ]);
    expect(mock.controlRequests.map((r) => `${r.method} ${r.path}${r.query}`)).toEqual([
      'GET /foundation-models',
      'GET /foundation-models?byOutputModality=EMBEDDING',
    ]);
  });

  it('refuses a filter outside its enum in AWS words', async () => {
    const bad = await signed(listUrl('?byOutputModality=AUDIO'));
    expect(bad).toMatchObject({ status: 400, type: 'ValidationException' });
    expect(bad.body.message).toBe(
      "1 validation error detected: Value 'AUDIO' at 'byOutputModality' failed to satisfy constraint: Member must satisfy enum value set: [TEXT, IMAGE, EMBEDDING]",
    );
  });

  it("authenticates as the runtime does: the account's key pairs and API keys, nothing else", async () => {
    const keyed = await send(listUrl(), 'GET', { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}` });
    expect(keyed.status).toBe(200);
    const wrongKey = await send(listUrl(), 'GET', { authorization: 'Bearer ABSKwrong' });
    expect(wrongKey).toMatchObject({ status: 403, type: 'AccessDeniedException' });
    const stranger = new SigV4Auth(
      () => Promise.resolve({ ...MOCK_AWS_CREDENTIAL, secretAccessKey: 'not-the-secret' }),
      REGION,
    );
    const forged = await signed(listUrl(), 'GET', '', stranger);
    stranger.close();
    expect(forged).toMatchObject({ status: 403, type: 'InvalidSignatureException' });
    expect(String(forged.body.message)).toMatch(/^The request signature we calculated does not match/);
    expect((await send(listUrl(), 'GET', {})).type).toBe('MissingAuthenticationTokenException');
  });

  it('answers AccessDeniedException, naming no resource, when the policy does not allow the listing', async () => {
    mock.deny(['bedrock:ListFoundationModels']);
    const denied = await signed(listUrl());
    expect(denied).toMatchObject({ status: 403, type: 'AccessDeniedException' });
    expect(denied.body.message).toBe(
      `User: ${MOCK_AWS_PRINCIPAL} is not authorized to perform: bedrock:ListFoundationModels because no identity-based policy allows the bedrock:ListFoundationModels action`,
    );
  });

  it("keeps each endpoint to its own operations: neither serves the other's", async () => {
    const invokeHere = await signed(`${mock.controlUrl}${CONVERSE}`, 'POST', HELLO);
    expect(invokeHere).toMatchObject({ status: 400, type: 'ValidationException' });
    expect(invokeHere.body.message).toBe('The requested operation is not recognized by the service.');
    const listOnRuntime = await signed(`${mock.url}${LIST_FOUNDATION_MODELS_PATH}`);
    expect(listOnRuntime).toMatchObject({ status: 400, type: 'ValidationException' });
    expect(listOnRuntime.body.message).toBe('Unknown operation');
  });
});

describe('mock Bedrock runtime: the IAM policy of its identity', () => {
  it("refuses a model action the policy does not allow, in IAM's words naming the resource", async () => {
    mock.deny(['bedrock:InvokeModel']);
    const denied = await signed(`${mock.url}${CONVERSE}`, 'POST', HELLO);
    expect(denied).toMatchObject({ status: 403, type: 'AccessDeniedException' });
    expect(denied.body.message).toBe(
      `User: ${MOCK_AWS_PRINCIPAL} is not authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:${REGION}:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0 because no identity-based policy allows the bedrock:InvokeModel action`,
    );
    // The stream is another action, allowed here; and the listing still works.
    const stream = await signed(
      `${mock.url}${CONVERSE.replace(/converse$/, 'converse-stream')}`,
      'POST',
      HELLO,
    );
    expect(stream.status).toBe(200);
    expect((await signed(listUrl())).status).toBe(200);
    mock.reset();
    expect((await signed(`${mock.url}${CONVERSE}`, 'POST', HELLO)).status).toBe(200);
  });
});
