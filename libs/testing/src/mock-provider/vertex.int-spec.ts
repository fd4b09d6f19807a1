import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { GoogleGenAI } from '@google/genai';
import { type MockGoogle, startMockGoogle } from '../mock-google/server.js';
import { startMockProvider, type MockProvider } from '../../index.js';

const FEDERATED = 'k8s-projected-token';
const BASE = '/v1/projects/mock-project/locations/us-east5/publishers';
const CLAUDE = 'claude-sonnet-4@20250514';
let mock: MockProvider;
let google: MockGoogle;
let other: MockGoogle;
let wifFile: string;

beforeAll(async () => {
  google = await startMockGoogle({ federatedToken: FEDERATED });
  other = await startMockGoogle();
  mock = await startMockProvider({ vertex: { ...DEFAULT_VERTEX(), googleKeys: [...google.signingKeys] } });
  const dir = mkdtempSync(join(tmpdir(), 'mock-vertex-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, FEDERATED);
  wifFile = join(dir, 'wif.json');
  writeFileSync(wifFile, JSON.stringify(google.externalAccount(tokenFile)));
});
afterAll(async () => {
  await Promise.all([mock.close(), google.close(), other.close()]);
});
beforeEach(() => mock.reset());

function DEFAULT_VERTEX() {
  return {
    projects: ['mock-project'],
    locations: ['global', 'us-east5'],
    anthropicModels: [CLAUDE],
  };
}

/** An access token from a mock Google's metadata server (as on GKE), with the scope asked for. */
async function tokenFrom(
  g: MockGoogle,
  scopes = 'https://www.googleapis.com/auth/cloud-platform',
): Promise<string> {
  const res = await fetch(
    `${g.url}/computeMetadata/v1/instance/service-accounts/default/token?scopes=${scopes}`,
    {
      headers: { 'metadata-flavor': 'Google' },
    },
  );
  return ((await res.json()) as { access_token: string }).access_token;
}

async function post(path: string, body: unknown, token: string | null, headers: Record<string, string> = {}) {
  const res = await fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}
const json = (text: string): Record<string, any> => JSON.parse(text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of nested answers

const claudeBody = {
  anthropic_version: 'vertex-2023-10-16',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hi' }],
};

describe('mock Vertex AI: Gemini with the official SDK in Vertex mode, authenticated by workload identity federation', () => {
  /** Jest's VM realm hides Node's undici dispatcher from the SDK: handing it the realm's fetch skips that lookup. */
  const ai = (): GoogleGenAI =>
    new GoogleGenAI({
      vertexai: true,
      project: 'mock-project',
      location: 'us-east5',
      googleAuthOptions: { keyFilename: wifFile, scopes: ['https://www.googleapis.com/auth/cloud-platform'] },
      httpOptions: { baseUrl: mock.url, fetch },
    });

  it('generateContent, a stream and countTokens on publishers/google, each with a token the mock verified', async () => {
    const client = ai();
    const reply = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hello Vertex',
    });
    expect(reply.text).toBeTruthy();
    expect(reply.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(reply.createTime).toBeDefined();
    let chunks = 0;
    for await (const chunk of await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Hi',
    }))
      if (chunk.text) chunks++;
    expect(chunks).toBeGreaterThan(1);
    const count = await client.models.countTokens({
      model: 'gemini-2.5-flash',
      contents: 'Hello Vertex',
      config: { systemInstruction: 'Be terse.' },
    });
    expect(count.totalTokens).toBeGreaterThan(0);
    const paths = mock.requests.map((r) => r.path);
    expect(paths).toEqual([
      '/v1beta1/projects/mock-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
      '/v1beta1/projects/mock-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
      '/v1beta1/projects/mock-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:countTokens',
    ]);
    expect(google.issued.some((t) => t.grant === 'workload_identity_federation')).toBe(true);
  });

  it("refuses what Vertex refuses of a Gemini body: a content without role, AI Studio's countTokens wrapper", async () => {
    const token = await tokenFrom(google);
    const roleless = await post(
      `${BASE}/google/models/gemini-2.5-flash:generateContent`,
      { contents: [{ parts: [{ text: 'x' }] }] },
      token,
    );
    expect(roleless.status).toBe(400);
    expect(json(roleless.text).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'Please use a valid role: user, model.',
    });
    const wrapped = await post(
      `${BASE}/google/models/gemini-2.5-flash:countTokens`,
      { generateContentRequest: { model: 'models/gemini-2.5-flash', contents: [] } },
      token,
    );
    expect(wrapped.status).toBe(400);
    expect(json(wrapped.text).error.message).toMatch(/Unknown name "generateContentRequest"/);
  });
});

describe('mock Vertex AI: Claude on publishers/anthropic', () => {
  it('rawPredict: Anthropic Messages with the model in the path and the Vertex version in the body', async () => {
    const res = await post(
      `${BASE}/anthropic/models/${CLAUDE}:rawPredict`,
      claudeBody,
      await tokenFrom(google),
    );
    expect(res.status).toBe(200);
    const body = json(res.text);
    expect(body.id).toMatch(/^msg_vrtx_/);
    expect(body.model).toBe(CLAUDE);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
  });

  it('streamRawPredict: Anthropic SSE events', async () => {
    const res = await post(
      `${BASE}/anthropic/models/${CLAUDE}:streamRawPredict`,
      { ...claudeBody, stream: true },
      await tokenFrom(google),
    );
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^event: message_start\ndata: \{.*"id":"msg_vrtx_/);
    expect(res.text).toContain('event: message_stop');
  });

  it('count-tokens: the counted model in the body', async () => {
    const res = await post(
      `${BASE}/anthropic/models/count-tokens:rawPredict`,
      { anthropic_version: 'vertex-2023-10-16', model: CLAUDE, messages: claudeBody.messages },
      await tokenFrom(google),
    );
    expect(res.status).toBe(200);
    expect(json(res.text).input_tokens).toBeGreaterThan(0);
  });

  it("refuses what Vertex refuses of a Claude body, in Anthropic's shape", async () => {
    const token = await tokenFrom(google);
    const path = `${BASE}/anthropic/models/${CLAUDE}:rawPredict`;
    const { anthropic_version: _v, ...noVersion } = claudeBody;
    const cases: [unknown, string, RegExp][] = [
      [noVersion, path, /anthropic_version: Field required/],
      [
        { ...claudeBody, anthropic_version: '2023-06-01' },
        path,
        /anthropic_version: Input should be 'vertex-2023-10-16'/,
      ],
      [{ ...claudeBody, model: CLAUDE }, path, /model: Extra inputs are not permitted/],
      [{ ...claudeBody, stream: true }, path, /streamRawPredict/],
    ];
    for (const [body, at, message] of cases) {
      const res = await post(at, body, token);
      expect(res.status).toBe(400);
      expect(json(res.text)).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringMatching(message) },
      });
    }
  });

  it("throttling comes from Vertex's front end in Google's shape (429 RESOURCE_EXHAUSTED)", async () => {
    const res = await post(
      `${BASE}/anthropic/models/${CLAUDE}:rawPredict`,
      claudeBody,
      await tokenFrom(google),
      { 'x-mock-fail': '429' },
    );
    expect(res.status).toBe(429);
    expect(json(res.text).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });
});

describe("mock Vertex AI: Google's checks of the URL and the token", () => {
  const path = `${BASE}/anthropic/models/${CLAUDE}:rawPredict`;
  const reasonOf = (text: string): unknown => json(text).error.details?.[0]?.reason;

  it('no token: 401 CREDENTIALS_MISSING; a token signed by another issuer: 401', async () => {
    const none = await post(path, claudeBody, null);
    expect(none.status).toBe(401);
    expect(json(none.text).error.status).toBe('UNAUTHENTICATED');
    expect(reasonOf(none.text)).toBe('CREDENTIALS_MISSING');
    const forged = await post(path, claudeBody, await tokenFrom(other));
    expect(forged.status).toBe(401);
    expect(reasonOf(forged.text)).toBe('ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });

  it("an expired token: 401 UNAUTHENTICATED with Google's body", async () => {
    google.setTokenLifetime(1);
    const token = await tokenFrom(google);
    google.setTokenLifetime(3600);
    await sleep(1_100);
    const res = await post(path, claudeBody, token);
    expect(res.status).toBe(401);
    expect(json(res.text).error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      message: expect.stringMatching(/^Request had invalid authentication credentials/),
      details: [expect.objectContaining({ reason: 'ACCESS_TOKEN_EXPIRED', domain: 'googleapis.com' })],
    });
  });

  it('a token without cloud-platform: 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT', async () => {
    const res = await post(
      path,
      claudeBody,
      await tokenFrom(google, 'https://www.googleapis.com/auth/userinfo.email'),
    );
    expect(res.status).toBe(403);
    expect(reasonOf(res.text)).toBe('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
  });

  it('a project it may not use: 403; a location it does not serve: 400; a model it does not have: 404', async () => {
    const token = await tokenFrom(google);
    const project = await post(path.replace('mock-project', 'someone-else'), claudeBody, token);
    expect(project.status).toBe(403);
    expect(reasonOf(project.text)).toBe('IAM_PERMISSION_DENIED');
    expect((await post(path.replace('us-east5', 'mars-north1'), claudeBody, token)).status).toBe(400);
    const model = await post(path.replace(CLAUDE, 'claude-unknown@1'), claudeBody, token);
    expect(model.status).toBe(404);
    expect(json(model.text).error.message).toMatch(
      /^Publisher Model `projects\/mock-project\/locations\/us-east5\/publishers\/anthropic\/models\/claude-unknown@1` was not found/,
    );
    expect((await post(`${BASE}/meta/models/llama:rawPredict`, claudeBody, token)).status).toBe(404);
  });

  it("the project's model listing answers the router's probe", async () => {
    const res = await fetch(`${mock.url}/v1/projects/mock-project/locations/us-east5/models`, {
      headers: { authorization: `Bearer ${await tokenFrom(google)}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });
});
