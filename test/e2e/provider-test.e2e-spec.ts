import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { MOCK_AWS_CREDENTIAL, type MockBedrock, startMockBedrock } from '#libs/testing';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

/**
 * The console's "test" action (POST /api/admin/config/providers/test): the router's probe of a
 * provider sent once with settings and a key not saved yet, against the mock provider (OpenAI's
 * refusals, word for word) and the Bedrock mock's control plane (SigV4 from the environment).
 */
const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;
const VENDOR_KEY = `sk-vendor-${randomBytes(16).toString('hex')}`;
const WRONG_KEY = `sk-wrong-${randomBytes(16).toString('hex')}`;
const REGION = 'us-west-2';
let gw: Gateway;
let admin: ConsoleClient;
let bedrock: MockBedrock;
/** An account whose secret for the gateway's key id differs: every signature refused. */
let foreign: MockBedrock;
/** Takes connections and never answers. */
let silent: Server;

beforeAll(async () => {
  bedrock = await startMockBedrock({ region: REGION });
  foreign = await startMockBedrock({
    region: REGION,
    credentials: [{ accessKeyId: MOCK_AWS_CREDENTIAL.accessKeyId, secretAccessKey: 'another-secret' }],
  });
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  gw = await startGateway('provider_test', testConfig, {
    mocks: 2,
    env: {
      CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
    },
  });
  gw.mocks[1]!.setBehaviour({ requireApiKey: VENDOR_KEY });
  admin = new ConsoleClient(gw.consoleUrl, ADMIN_TOKEN);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await bedrock?.close();
  await foreign?.close();
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve));
});

const vendor = (extra: Record<string, unknown> = {}) => ({
  id: 'new-vendor',
  type: 'openai',
  base_url: `${gw.mocks[1]!.url}/v1`,
  models: ['new-model'],
  ...extra,
});
const test = (body: unknown) => admin.request('POST', '/api/admin/config/providers/test', body);
const listings = () => gw.mocks[1]!.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models');

describe('testing a provider before it is saved', () => {
  it('a good key typed in the form: the listing answers 200, with its latency', async () => {
    const before = listings().length;
    const res = await test({ provider: vendor(), key: VENDOR_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number), error: null });
    // The router's probe: its listing with the provider's own auth.
    const sent = listings().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);
    expect(sent[0]!.headers['user-agent']).toBe('model-gateway-router');
  });

  it("a wrong key: not ok, with the vendor's 401 in its own words and never the key", async () => {
    const res = await test({ provider: vendor(), key: WRONG_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: false,
      status: 401,
      latencyMs: expect.any(Number),
      error: expect.stringMatching(/^Incorrect API key provided: sk-\*+.{4}\. You can find your API key at/),
    });
    expect(JSON.stringify(res.body)).not.toContain(WRONG_KEY.slice(3, -4));
  });

  it('no key at all: the vendor says none was given', async () => {
    const res = await test({ provider: vendor() });
    expect(res.body).toMatchObject({
      ok: false,
      status: 401,
      error: expect.stringMatching(/didn't provide an API key/),
    });
  });

  it('a provider already saved with a stored key: tried with that key, which never comes back', async () => {
    const secret = await admin.request('POST', '/api/admin/config/secrets', {
      value: VENDOR_KEY,
      provider: { id: 'new-vendor', type: 'openai', base_url: `${gw.mocks[1]!.url}/v1` },
    });
    expect(secret.status).toBe(201);
    const res = await test({ provider: vendor({ api_key_secret: secret.body.id }) });
    expect(res.body).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number), error: null });
    expect(listings().at(-1)!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);

    const unknown = await test({
      provider: vendor({ api_key_secret: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(unknown.body).toEqual({
      ok: false,
      status: null,
      latencyMs: null,
      error: expect.stringMatching(/stored key cannot be used: secret 0{8}-.* does not exist/),
    });
  });

  it('a key named by an environment variable the console does not have: not sent anywhere', async () => {
    const before = listings().length;
    const res = await test({ provider: vendor({ api_key_env: 'NOT_SET_ANYWHERE_API_KEY' }) });
    expect(res.body).toEqual({
      ok: false,
      status: null,
      latencyMs: null,
      error:
        'env NOT_SET_ANYWHERE_API_KEY is not set, or not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS)',
    });
    expect(listings()).toHaveLength(before);
  });

  it('a disabled provider is tried all the same (before it is switched on)', async () => {
    const res = await test({ provider: vendor({ enabled: false }), key: VENDOR_KEY });
    expect(res.body).toMatchObject({ ok: true, status: 200 });
  });

  it('refuses what the schema refuses, naming the field, before any request', async () => {
    const before = listings().length;
    const badUrl = await test({ provider: vendor({ base_url: 'ftp://example.com' }), key: VENDOR_KEY });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^Invalid provider: provider\.base_url: /),
    });
    const noRegion = await test({ provider: { id: 'br', type: 'bedrock', models: ['m'] } });
    expect(noRegion.body.error.message).toMatch(/provider\.region: required for type bedrock/);
    const vertexKey = await test({
      provider: { id: 'vx', type: 'vertex', project: 'my-project-123', location: 'us-east5', models: ['m'] },
      key: VENDOR_KEY,
    });
    expect(vertexKey.status).toBe(400);
    expect(vertexKey.body.error.message).toMatch(
      /^Invalid key: type vertex authenticates with Google credentials/,
    );
    const shortKey = await test({ provider: vendor(), key: 'short' });
    expect(shortKey.status).toBe(400);
    expect(shortKey.body.error.message).toMatch(/^Invalid body field "key"/);
    expect(listings()).toHaveLength(before);
  });

  it('an address nobody answers on, and one that never answers: the reason, bounded by the probe timeout', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await test({
      provider: vendor({ base_url: `http://127.0.0.1:${port}/v1` }),
      key: VENDOR_KEY,
    });
    expect(refused.body).toEqual({ ok: false, status: null, latencyMs: null, error: 'ECONNREFUSED' });

    const hanging = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    const timedOut = await test({ provider: vendor({ base_url: hanging }), key: VENDOR_KEY });
    const timeout = gw.config.router.probe_timeout_ms;
    expect(timedOut.body).toEqual({
      ok: false,
      status: null,
      latencyMs: null,
      error: `timeout after ${timeout}ms`,
    });
  });

  it("bedrock without a key: ListFoundationModels signed with the environment's AWS credentials", async () => {
    const provider = (mock: MockBedrock) => ({
      id: 'br',
      type: 'bedrock',
      region: REGION,
      base_url: mock.url,
      control_plane_url: mock.controlUrl,
      models: [{ id: 'claude', upstream: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }],
    });
    const ok = await test({ provider: provider(bedrock) });
    expect(ok.body).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number), error: null });
    const listing = bedrock.controlRequests.filter((r) => r.path === '/foundation-models').at(-1)!;
    expect(String(listing.headers.authorization)).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${MOCK_AWS_CREDENTIAL.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request`,
      ),
    );

    const refused = await test({ provider: provider(foreign) });
    expect(refused.body).toEqual({
      ok: false,
      status: 403,
      latencyMs: expect.any(Number),
      error: expect.stringMatching(
        /^InvalidSignatureException: The request signature we calculated does not match/,
      ),
    });
  });

  it('admins only', async () => {
    const anonymous = new ConsoleClient(gw.consoleUrl);
    const res = await anonymous.request('POST', '/api/admin/config/providers/test', { provider: vendor() });
    expect(res.status).toBe(401);
  });
});

describe("the catalog's prices for a model of a provider not saved yet", () => {
  it('by the provider type and the id its vendor serves, with the catalog and its date', async () => {
    const res = await admin.get('/api/admin/config/catalog-prices?type=openai&model=gpt-4o-mini');
    expect(res.status).toBe(200);
    expect(res.body.proposal).toMatchObject({
      pricing: { input_per_million: expect.any(Number), output_per_million: expect.any(Number) },
      catalog: { package: '@pydantic/genai-prices', date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}/) },
      source: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    const unknown = await admin.get('/api/admin/config/catalog-prices?type=openai&model=new-model');
    expect(unknown.status).toBe(404);
    const badType = await admin.get('/api/admin/config/catalog-prices?type=nope&model=gpt-4o-mini');
    expect(badType.status).toBe(400);
    expect(badType.body.error.message).toMatch(/"type"/);
  });
});
