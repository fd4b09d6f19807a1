import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DEFAULT_VERTEX_BEHAVIOUR,
  type MockGoogle,
  type RecordedRequest,
  startMockGoogle,
  verifyGoogleToken,
} from '#libs/testing';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway } from '../support/gateway.js';

/**
 * Vertex AI end to end with the official SDKs, what is Vertex's own: one keyless `vertex`
 * provider (workload identity federation against a mock Google, short-lived tokens renewed during
 * the test) serving a Gemini and a Claude model on Vertex's URLs and bodies; cache reads and
 * writes charged as for the direct vendors; a throttled Vertex failing over; a refused credential
 * as the provider's down reason, never a 500. Every client format, stream and not, against both
 * kinds of model is the conformance matrix's (test/e2e/conformance-*.e2e-spec.ts, rows
 * `vertex-gemini` and `vertex-claude`).
 */
const TOKEN_LIFETIME_S = 8;
const FEDERATED = 'k8s-projected-service-account-token';
const GEMINI = 'gemini-2.5-flash';
const CLAUDE = 'claude-sonnet-4@20250514';
const PREFIX = '/v1/projects/mock-project/locations/us-east5/publishers';
const PATHS = {
  generate: `${PREFIX}/google/models/${GEMINI}:generateContent`,
  stream: `${PREFIX}/google/models/${GEMINI}:streamGenerateContent`,
  count: `${PREFIX}/google/models/${GEMINI}:countTokens`,
  raw: `${PREFIX}/anthropic/models/${CLAUDE}:rawPredict`,
  streamRaw: `${PREFIX}/anthropic/models/${CLAUDE}:streamRawPredict`,
  claudeCount: `${PREFIX}/anthropic/models/count-tokens:rawPredict`,
};
/** Anthropic's Sonnet prices and Google's Flash ones are irrelevant here: round ones, all five components. */
const PRICING = {
  input_per_million: 1,
  output_per_million: 2,
  cache_read_per_million: 0.1,
  cache_write_5m_per_million: 1.25,
  cache_write_1h_per_million: 2,
};
const model = (id: string) => ({ id, owned_by: 'google', created: 1767225600, pricing: PRICING });

let google: MockGoogle;
let gw: Gateway;
let anthropic: Anthropic;
let genai: GoogleGenAI;

beforeAll(async () => {
  google = await startMockGoogle({ federatedToken: FEDERATED, tokenLifetimeSeconds: TOKEN_LIFETIME_S });
  const dir = mkdtempSync(join(tmpdir(), 'e2e-vertex-'));
  writeFileSync(join(dir, 'token'), FEDERATED);
  writeFileSync(join(dir, 'wif.json'), JSON.stringify(google.externalAccount(join(dir, 'token'))));
  gw = await startGateway(
    'vertex',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      providers: [
        // Keyless: Google's workload identity federation; the mock plays the location's endpoint.
        {
          id: 'vx',
          type: 'vertex',
          project: 'mock-project',
          location: 'us-east5',
          base_url: mockUrl,
          models: [
            { id: 'vx-gemini', upstream: GEMINI },
            { id: 'vx-claude', upstream: CLAUDE },
            // A Claude model the project has no access to (Vertex answers 404 in Google's shape).
            { id: 'vx-missing', upstream: 'claude-missing@20990101' },
          ],
        },
        // Second in line for both models: the direct vendors, for failover.
        {
          id: 'direct-claude',
          type: 'anthropic',
          base_url: mockUrl,
          priority: 1,
          probe_path: '/v1/models',
          models: [{ id: 'vx-claude', upstream: 'claude-sonnet-4-6' }],
        },
        {
          id: 'direct-gemini',
          type: 'gemini',
          base_url: mockUrl,
          priority: 1,
          probe_path: '/v1beta/models',
          models: [{ id: 'vx-gemini', upstream: GEMINI }],
        },
      ],
      models: [model('vx-gemini'), model('vx-claude'), model('vx-missing')],
      groups: { default: ['vx-gemini', 'vx-claude', 'vx-missing'] },
    }),
    {
      env: { GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'wif.json') },
      mock: { vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [...google.signingKeys] } },
    },
  );
  const key = (await gw.createKey()).raw;
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.edgeUrl, apiVersion: 'v1beta', fetch } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await google?.close();
});

const last = (path: string): RecordedRequest => {
  const found = gw.mock.requests.filter((r) => r.path === path).at(-1);
  if (!found) throw new Error(`no upstream request on ${path}`);
  return found;
};
const bearerOk = async (r: RecordedRequest): Promise<void> =>
  expect(await verifyGoogleToken(String(r.headers.authorization).slice(7), google.signingKeys)).toMatchObject(
    {
      ok: true,
    },
  );
const rowOf = async (requestId: string | null) => gw.logRow(requestId!);
const user = (content: string) => [{ role: 'user' as const, content }];

describe('Gemini on Vertex', () => {
  it('serves Gemini clients natively (generateContent, a stream, countTokens) with a verified Google token', async () => {
    const res = await genai.models.generateContent({ model: 'vx-gemini', contents: 'Hello Vertex Gemini' });
    expect(res.text).toMatch(/Hello Vertex Gemini/);
    await bearerOk(last(PATHS.generate));
    expect(last(PATHS.generate).body).toMatchObject({ contents: [{ role: 'user' }] });
    let text = '';
    for await (const chunk of await genai.models.generateContentStream({
      model: 'vx-gemini',
      contents: 'Streamed',
    }))
      text += chunk.text ?? '';
    expect(text).toMatch(/Streamed/);
    expect(last(PATHS.stream).query).toBe('alt=sse');
    const count = await genai.models.countTokens({ model: 'vx-gemini', contents: 'Count me' });
    expect(count.totalTokens).toBeGreaterThan(0);
    expect(last(PATHS.count).body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Count me' }] }] });
  });
});

describe('Claude on Vertex', () => {
  it('serves Messages clients natively on rawPredict / streamRawPredict: the model in the path, the Vertex version in the body', async () => {
    const msg = await anthropic.messages.create({
      model: 'vx-claude',
      max_tokens: 64,
      messages: user('Hello Vertex Claude'),
    });
    expect(msg.id).toMatch(/^msg_vrtx_/);
    const sent = last(PATHS.raw);
    await bearerOk(sent);
    expect(sent.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64 });
    expect(sent.body).not.toHaveProperty('model');
    expect(sent.headers['anthropic-version']).toBeUndefined();
    let text = '';
    for await (const e of anthropic.messages.stream({
      model: 'vx-claude',
      max_tokens: 64,
      messages: user('Stream Claude'),
    }))
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    expect(text).toMatch(/Stream Claude/);
    expect(last(PATHS.streamRaw).body).toMatchObject({
      stream: true,
      anthropic_version: 'vertex-2023-10-16',
    });
    const counted = await anthropic.messages.countTokens({
      model: 'vx-claude',
      messages: user('Count Claude'),
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(last(PATHS.claudeCount).body).toMatchObject({
      model: CLAUDE,
      anthropic_version: 'vertex-2023-10-16',
    });
  });

  it('charges cache reads and 5-minute and 1-hour writes from the usage Vertex reports, as for Anthropic', async () => {
    gw.mock.setBehaviour({ cachedTokens: 800, cacheWrite5mTokens: 200, cacheWrite1hTokens: 100 });
    try {
      const { data, response } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 64, messages: user('word '.repeat(1000)) })
        .withResponse();
      const u = data.usage;
      expect(u.cache_read_input_tokens).toBe(800);
      const row = await rowOf(response.headers.get('x-request-id'));
      expect(row.provider_id).toBe('vx');
      expect(Number(row.input_tokens)).toBe(u.input_tokens + 800 + 300);
      // Nanocredits: uncached 1000, read 100, 5m write 1250, 1h write 2000, output 2000 per token.
      expect(Number(row.cost_nanos)).toBe(
        u.input_tokens * 1000 + 800 * 100 + 200 * 1250 + 100 * 2000 + u.output_tokens * 2000,
      );
      const gem = await genai.models.generateContent({ model: 'vx-gemini', contents: 'word '.repeat(1000) });
      const meta = gem.usageMetadata!;
      expect(meta.cachedContentTokenCount).toBe(800);
      const gemRow = await rowOf(gem.sdkHttpResponse?.headers?.['x-request-id'] ?? null);
      const output = meta.candidatesTokenCount! + (meta.thoughtsTokenCount ?? 0);
      expect(Number(gemRow.cost_nanos)).toBe(
        (meta.promptTokenCount! - 800) * 1000 + 800 * 100 + output * 2000,
      );
    } finally {
      gw.mock.setBehaviour({ cachedTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 });
    }
  });
});

describe('credentials and faults', () => {
  it("renders Vertex's Google-shaped 404 for a Claude model in Anthropic's shape, not a failover", async () => {
    const err = await anthropic.messages
      .create({ model: 'vx-missing', max_tokens: 16, messages: user('missing') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    const body = (err as InstanceType<typeof Anthropic.NotFoundError>).error as {
      error: { type: string; message: string };
    };
    expect(body.error.type).toBe('not_found_error');
    expect(body.error.message).toMatch(
      /^Vertex AI refused the request: Publisher Model `projects\/mock-project\/locations\/us-east5\/publishers\/anthropic\/models\/claude-missing@20990101` was not found/,
    );
  });

  it('renews the token on its own schedule ahead of expiry, so no request waits on it or gets a 401', async () => {
    const tokenOf = (r: RecordedRequest) => String(r.headers.authorization ?? '').slice(7);
    const issuedIndex = (token: string) => google.issued.findIndex((t) => t.token === token);
    const raws = () => gw.mock.requests.filter((r) => r.path === PATHS.raw);
    const requestIds: string[] = [];
    const tick = async () => {
      const { response } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 16, messages: user('tick') })
        .withResponse();
      requestIds.push(response.headers.get('x-request-id')!);
    };

    // Under traffic: requests until the edge has moved to a new token (a generous bound, for a
    // loaded machine, not a target), every one answered by Vertex itself with a token Google
    // issued: a refused token would have failed over to the direct vendor.
    const before = raws().length;
    const edgeTokens = await eventually(
      async () => {
        await tick();
        await new Promise((r) => setTimeout(r, 250));
        const used = new Set(raws().slice(before).map(tokenOf));
        return used.size > 1 ? [...used] : undefined;
      },
      TOKEN_LIFETIME_S * 1000 * 3,
      'a renewed token in use',
    );
    for (const t of edgeTokens) expect(issuedIndex(t)).toBeGreaterThanOrEqual(0);
    for (const id of requestIds) expect((await rowOf(id)).provider_id).toBe('vx');

    // Idle: no request for the whole life of the edge's last token. Renewing on demand, the edge
    // would get its next token only for the next request; renewing on a schedule, it already
    // holds one, got while nothing asked. The router's probes (GETs with a bearer token) take
    // tokens of their own, told apart by their use: a token none of three probes since it was
    // issued carries is the edge's.
    const last = google.issued[issuedIndex(edgeTokens.at(-1)!)]!;
    const idleFrom = google.issued.length;
    const probes = () =>
      gw.mock.requests.filter(
        (r) => r.method === 'GET' && String(r.headers.authorization ?? '').startsWith('Bearer '),
      );
    const probesSeen = new Map<number, number>(); // issued index -> probes received when first seen
    await eventually(
      async () => {
        for (let i = idleFrom; i < google.issued.length; i++)
          if (!probesSeen.has(i)) probesSeen.set(i, probes().length);
        const edgeRenewed = [...probesSeen].some(([i, seen]) => {
          const since = probes().slice(seen);
          return since.length >= 3 && since.every((p) => tokenOf(p) !== google.issued[i]!.token);
        });
        return edgeRenewed && Date.now() > last.expiresAtMs ? true : undefined;
      },
      TOKEN_LIFETIME_S * 1000 * 3,
      "the edge's last token expired and a new one got while idle",
    );
    const issuedBeforeSend = google.issued.length;
    await tick();
    expect((await rowOf(requestIds.at(-1)!)).provider_id).toBe('vx');
    const after = raws().at(-1)!;
    await bearerOk(after);
    // The request went out with a token issued while idle, before it was sent: it waited on nothing.
    expect(issuedIndex(tokenOf(after))).toBeGreaterThanOrEqual(idleFrom);
    expect(issuedIndex(tokenOf(after))).toBeLessThan(issuedBeforeSend);
  }, 60_000);

  it('fails over to the next provider when Vertex throttles (429 RESOURCE_EXHAUSTED)', async () => {
    gw.mock.setBehaviour({ failureRate: 1, failStatus: 429, failurePath: PATHS.raw });
    try {
      const { response } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 16, messages: user('throttled') })
        .withResponse();
      expect((await rowOf(response.headers.get('x-request-id'))).provider_id).toBe('direct-claude');
    } finally {
      gw.mock.setBehaviour({ failureRate: 0, failurePath: null });
    }
  });

  it('a token Vertex refuses (401 UNAUTHENTICATED): the next provider serves, never a 500 or a 401; the provider goes down with the reason', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const pem = stranger.export({ type: 'spki', format: 'pem' }).toString();
    gw.mock.setBehaviour({ vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [pem] } });
    try {
      // A refused credential is the provider's failure: the request fails over (issue 21), and the
      // refused attempt is logged with Google's words.
      const { response } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 16, messages: user('refused token') })
        .withResponse();
      const row = await rowOf(response.headers.get('x-request-id'));
      expect(row.provider_id).toBe('direct-claude');
      expect(row.attempts[0]).toMatchObject({
        providerId: 'vx',
        status: 401,
        reason:
          'credentials refused: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole…',
      });
      // The router marks it down with the reason (the request's, or the probe's, which gets the same 401).
      const reason = await eventually(
        async () => {
          const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
            models: Record<string, Array<{ providerId: string; state: string; reason: string }>>;
          };
          const c = body.models['vx-claude']?.find((x) => x.providerId === 'vx');
          return c?.state === 'down' ? c.reason : undefined;
        },
        5_000,
        'vx down on 401',
      );
      expect(reason).toMatch(
        /^(request: HTTP 401 Request had invalid authentication credentials\.|probe: HTTP 401$)/,
      );
      const { response: next } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 16, messages: user('served elsewhere') })
        .withResponse();
      expect((await rowOf(next.headers.get('x-request-id'))).provider_id).toBe('direct-claude');
    } finally {
      gw.mock.setBehaviour({ vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [...google.signingKeys] } });
    }
    // Back up once the probe passes again, before the next test refuses the credential itself.
    await eventually(
      async () => {
        const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
          models: Record<string, Array<{ providerId: string; state: string }>>;
        };
        return body.models['vx-claude']?.find((x) => x.providerId === 'vx')?.state === 'up'
          ? true
          : undefined;
      },
      5_000,
      'vx up again',
    );
  }, 20_000);

  it("marks the provider down with Google's reason once its token is refused and expired; clients are served, never a 500", async () => {
    google.refuseAll(true);
    try {
      const reason = await eventually(
        async () => {
          const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
            models: Record<string, Array<{ providerId: string; state: string; reason: string }>>;
          };
          const c = body.models['vx-gemini']?.find((x) => x.providerId === 'vx');
          return c?.state === 'down' && c.reason.startsWith('credentials') ? c.reason : undefined;
        },
        TOKEN_LIFETIME_S * 1000 * 2,
        'vx down',
      );
      expect(reason).toMatch(/^credentials: .*invalid_grant/);
      const res = await genai.models.generateContent({ model: 'vx-gemini', contents: 'still served' });
      expect(res.text).toMatch(/still served/);
      const { response } = await anthropic.messages
        .create({ model: 'vx-claude', max_tokens: 16, messages: user('still served') })
        .withResponse();
      expect((await rowOf(response.headers.get('x-request-id'))).provider_id).toBe('direct-claude');
    } finally {
      google.refuseAll(false);
    }
  }, 30_000);
});
