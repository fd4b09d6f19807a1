import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import WebSocket from 'ws';
import { announceKeyInvalidation } from '#libs/auth';
import { type GatewayConfigInput } from '#libs/config';
import { createRedis, redisKeys } from '#libs/redis';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * Responses over WebSocket (issue 33, part 1) with the official SDK's `ResponsesWS`: each
 * `response.create` one request (one log row, one charge), `previous_response_id` chains expanded
 * from the connection's conversation for a native and a translated provider, errors as error
 * events, the handshake authenticated, a revoked key's socket closed.
 */
const NATIVE = 'ws-native';
const TRANSLATED = 'ws-translated';
/** Above the recorded Codex turns (under 50 KB), small enough to exceed in a test. */
const MAX_MESSAGE = 256 * 1024;

function config(mockUrl: string): GatewayConfigInput {
  return {
    ...FAST_TEST_SETTINGS,
    edge: { ...FAST_TEST_SETTINGS.edge, websockets: { max_message_bytes: MAX_MESSAGE } },
    providers: [
      { id: 'p-openai', type: 'openai', base_url: `${mockUrl}/v1`, models: [NATIVE] },
      {
        id: 'p-anthropic',
        type: 'anthropic',
        base_url: mockUrl,
        probe_path: '/v1/models',
        models: [TRANSLATED],
      },
    ],
    models: [NATIVE, TRANSLATED].map(testModel),
    groups: { default: [NATIVE, TRANSLATED] },
  };
}

let gw: Gateway;

beforeAll(async () => {
  gw = await startGateway('e2e-responses-ws', config);
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

type ServerEvent = OpenAI.Responses.ResponsesServerEvent;

/** A `ResponsesWS` whose events (and errors, and close) are read in order. */
class Session {
  readonly ws: ResponsesWS;
  private readonly seen: Array<ServerEvent | { type: 'close'; code: number }> = [];
  private wake: (() => void) | null = null;
  closeCode: number | null = null;

  constructor(apiKey: string, headers: Record<string, string> = {}) {
    const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey, maxRetries: 0 });
    this.ws = new ResponsesWS(client, { headers });
    this.ws.on('event', (event) => this.push(event));
    // Error events reach 'event' too; the SDK also raises them here (unhandled would reject).
    this.ws.on('error', () => undefined);
    this.ws.on('close', (code) => {
      this.closeCode = code;
      this.push({ type: 'close', code });
    });
  }

  private push(event: ServerEvent | { type: 'close'; code: number }): void {
    this.seen.push(event);
    this.wake?.();
  }

  /** The next event (in order), waiting for it. */
  async next(): Promise<ServerEvent | { type: 'close'; code: number }> {
    while (this.seen.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.seen.shift()!;
  }

  /** Every event up to and including the first that `until` accepts. */
  async until(until: (e: { type: string }) => boolean): Promise<Array<{ type: string }>> {
    const events: Array<{ type: string }> = [];
    for (;;) {
      const e = await this.next();
      events.push(e);
      if (until(e) || e.type === 'close') return events;
    }
  }

  /** One response: its events until it completes (or an error / the close). */
  async create(body: Record<string, unknown>): Promise<Array<{ type: string }>> {
    this.ws.send({ type: 'response.create', ...body } as OpenAI.Responses.ResponsesClientEvent);
    return this.until((e) => ['response.completed', 'response.incomplete', 'error'].includes(e.type));
  }
}

const completedOf = (events: Array<{ type: string }>) =>
  (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;

/** The log rows of a key, once `n` are written. */
async function rowsOf(keyId: string, n: number) {
  return eventually(async () => {
    const rows = await gw.db.db
      .selectFrom('request_logs')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('started_at')
      .execute();
    return rows.length >= n ? rows : undefined;
  });
}

/** The last model request the mock received. */
const lastUpstream = () => gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;

describe.each([
  ['native', NATIVE],
  ['translated', TRANSLATED],
])('a %s provider over one socket', (_kind, model) => {
  it('serves a previous_response_id chain, each response one log row and one charge', async () => {
    const key = await gw.createKey({ email: `chain-${model}@example.com` });
    const s = new Session(key.raw);
    const first = await s.create({ model, input: 'Say hello.' });
    expect(first[0]!.type).toBe('response.created');
    expect(first.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    const r1 = completedOf(first);
    expect(r1.status).toBe('completed');

    const second = await s.create({ model, previous_response_id: r1.id, input: 'And goodbye.' });
    const r2 = completedOf(second);
    expect(r2.status).toBe('completed');
    // The whole history went upstream, never the id (the upstream holds no response).
    const sent = lastUpstream().body as Record<string, unknown>;
    expect(sent.previous_response_id).toBeUndefined();
    expect(JSON.stringify(sent)).toContain('Say hello.');
    expect(JSON.stringify(sent)).toContain('And goodbye.');

    const third = await s.create({ model, previous_response_id: r2.id, input: 'Once more.' });
    expect(completedOf(third).status).toBe('completed');
    expect(JSON.stringify(lastUpstream().body)).toContain('Say hello.');

    const rows = await rowsOf(key.id, 3);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.endpoint).toBe('/v1/responses');
      expect(row.status).toBe(200);
      expect(row.error_code).toBeNull();
      expect(row.stream).toBe(true);
      expect(Number(row.cost_nanos)).toBeGreaterThan(0);
    }
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(3);
    s.ws.close();
  });
});

describe('errors on the socket', () => {
  it('a bad event gets an error event and the socket stays usable', async () => {
    const key = await gw.createKey({ email: 'bad-events@example.com' });
    const s = new Session(key.raw);
    s.ws.sendRaw('not json');
    const notJson = (await s.next()) as { type: string; status: number; error: { code: string } };
    expect(notJson).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_json' } });

    s.ws.sendRaw(JSON.stringify({ type: 'session.update' }));
    const unknown = (await s.next()) as { type: string; error: { message: string; param: string } };
    expect(unknown.type).toBe('error');
    expect(unknown.error.message).toContain('session.update');

    // A body the API refuses: answered (and logged) as the HTTP route answers it.
    const invalid = await s.create({ input: 'no model' });
    expect(invalid.at(-1)).toMatchObject({ type: 'error', status: 400, error: { param: 'model' } });

    const unknownPrevious = await s.create({ model: NATIVE, previous_response_id: 'resp_nope', input: 'x' });
    expect(unknownPrevious.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });

    const ok = await s.create({ model: NATIVE, input: 'still there?' });
    expect(completedOf(ok).status).toBe('completed');
    s.ws.close();
  });

  it('a binary message gets an error event, then the close 1003', async () => {
    const key = await gw.createKey({ email: 'binary@example.com' });
    const s = new Session(key.raw);
    s.ws.sendRaw(new Uint8Array([1, 2, 3]));
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'invalid_message' } });
    expect(await s.next()).toMatchObject({ type: 'close', code: 1003 });
  });

  it('a message over max_message_bytes gets an error event, then the close 1009', async () => {
    const key = await gw.createKey({ email: 'too-big@example.com' });
    const s = new Session(key.raw);
    s.ws.send({ type: 'response.create', model: NATIVE, input: 'x'.repeat(MAX_MESSAGE) } as never);
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'message_too_large' } });
    expect(await s.next()).toMatchObject({ type: 'close', code: 1009 });
  });

  it('an unauthenticated handshake is refused with 401 in the API error shape', async () => {
    const url = `${gw.edgeUrl.replace('http', 'ws')}/v1/responses`;
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { authorization: 'Bearer sk-wrong' } });
      ws.on('open', () => reject(new Error('upgraded')));
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
    });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'invalid_api_key' } });
  });
});

describe('the end of a socket', () => {
  it('a client gone mid-response leaves one log row, charged', async () => {
    const key = await gw.createKey({ email: 'gone@example.com' });
    gw.mock.setBehaviour({ chunkCount: 200, chunkIntervalMs: 50 });
    try {
      const s = new Session(key.raw);
      s.ws.send({ type: 'response.create', model: NATIVE, input: 'a long answer' } as never);
      await s.until((e) => e.type === 'response.output_text.delta');
      s.ws.close();
      const [row] = await rowsOf(key.id, 1);
      expect(row!.error_code).toBe('client_disconnected');
      expect(Number(row!.cost_nanos)).toBeGreaterThan(0);
      // Exactly one: the session's close ended nothing twice.
      expect(await rowsOf(key.id, 1)).toHaveLength(1);
    } finally {
      gw.mock.reset();
    }
  });

  it('a revoked key closes its socket', async () => {
    const key = await gw.createKey({ email: 'revoked-ws@example.com' });
    const s = new Session(key.raw);
    expect(completedOf(await s.create({ model: NATIVE, input: 'hi' })).status).toBe('completed');
    await gw.db.db
      .updateTable('api_keys')
      .set({ status: 'revoked', revoked_at: new Date() })
      .where('id', '=', key.id)
      .execute();
    const redis = createRedis(gw.env.redis);
    try {
      await announceKeyInvalidation(redis, redisKeys(gw.env.redisPrefix), key.hash);
    } finally {
      redis.disconnect();
    }
    expect(await s.next()).toMatchObject({ type: 'error', status: 401, error: { code: 'invalid_api_key' } });
    expect(await s.next()).toMatchObject({ type: 'close', code: 1008 });
  });
});

describe('Codex over the socket', () => {
  it('replays a recorded Codex turn as a response.create', async () => {
    const key = await gw.createKey({ email: 'codex-ws@example.com' });
    const fx = JSON.parse(readFileSync('test/fixtures/agents/codex.responses.3.json', 'utf8')) as {
      headers: Record<string, string>;
      body: Record<string, unknown>;
    };
    const { stream: _implied, ...body } = fx.body;
    const headers = Object.fromEntries(
      Object.entries(fx.headers).filter(([k]) =>
        ['originator', 'session-id', 'x-codex-window-id', 'x-codex-turn-metadata'].includes(k),
      ),
    );
    const s = new Session(key.raw, headers);
    const events = await s.create({ ...body, model: NATIVE });
    const done = completedOf(events);
    expect(done.status).toBe('completed');
    expect(done.output.some((o) => o.type === 'message' || o.type === 'function_call')).toBe(true);
    const sent = lastUpstream().body as Record<string, unknown>;
    expect(sent.stream).toBe(true);
    expect(sent.type).toBeUndefined();
    expect(sent.tools).toEqual(fx.body.tools);
    const [row] = await rowsOf(key.id, 1);
    expect(row!.status).toBe(200);
    s.ws.close();
  });
});
