import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { announceKeyInvalidation } from '#libs/auth';
import { type GatewayConfigInput } from '#libs/config';
import { createRedis, redisKeys } from '#libs/redis';
import { completedOf, Session } from '../support/responses-socket.js';
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

/** A socket to the first edge. */
const connect = (apiKey: string, headers: Record<string, string> = {}) =>
  new Session(`${gw.edgeUrl}/v1`, apiKey, headers);

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

/** The charges written for these requests (one each, in the log's own transaction). */
async function chargesOf(requestIds: string[]): Promise<number> {
  const rows = await gw.db.db
    .selectFrom('charges')
    .select('request_id')
    .where('request_id', 'in', requestIds)
    .execute();
  return rows.length;
}

/** The last model request the mock received. */
const lastUpstream = () => gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;

describe.each([
  ['native', NATIVE],
  ['translated', TRANSLATED],
])('a %s provider over one socket', (_kind, model) => {
  it('serves a previous_response_id chain, each response one log row and one charge', async () => {
    const key = await gw.createKey({ email: `chain-${model}@example.com` });
    const s = connect(key.raw);
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
    expect(await chargesOf(rows.map((r) => r.request_id))).toBe(3);
    s.ws.close();
  });
});

describe('requests on one socket', () => {
  it('run in sequence: one sent while another is in flight waits, then runs', async () => {
    const key = await gw.createKey({ email: 'sequence@example.com' });
    const s = connect(key.raw);
    s.ws.send({ type: 'response.create', model: NATIVE, input: 'first' } as never);
    s.ws.send({ type: 'response.create', model: TRANSLATED, input: 'second' } as never);
    const first = await s.until((e) => e.type === 'response.completed');
    const second = await s.until((e) => e.type === 'response.completed');
    // Every event of the first response came before the second began.
    expect(first.filter((e) => e.type === 'response.created')).toHaveLength(1);
    expect(second[0]!.type).toBe('response.created');
    expect(completedOf(second).id).not.toBe(completedOf(first).id);
    const rows = await rowsOf(key.id, 2);
    expect(rows.map((r) => r.model)).toEqual([NATIVE, TRANSLATED]);
    expect(await chargesOf(rows.map((r) => r.request_id))).toBe(2);
    s.ws.close();
  });
});

describe('errors on the socket', () => {
  it('a bad event gets an error event and the socket stays usable', async () => {
    const key = await gw.createKey({ email: 'bad-events@example.com' });
    const s = connect(key.raw);
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
    const s = connect(key.raw);
    s.ws.sendRaw(new Uint8Array([1, 2, 3]));
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'invalid_message' } });
    expect(await s.next()).toMatchObject({ type: 'close', code: 1003 });
  });

  it('a message over max_message_bytes gets an error event, then the close 1009', async () => {
    const key = await gw.createKey({ email: 'too-big@example.com' });
    const s = connect(key.raw);
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
      const s = connect(key.raw);
      s.ws.send({ type: 'response.create', model: NATIVE, input: 'a long answer' } as never);
      await s.until((e) => e.type === 'response.output_text.delta');
      s.ws.close();
      const [row] = await rowsOf(key.id, 1);
      expect(row!.error_code).toBe('client_disconnected');
      expect(Number(row!.cost_nanos)).toBeGreaterThan(0);
      expect(await chargesOf([row!.request_id])).toBe(1);
      // Exactly one: the session's close ended nothing twice.
      expect(await rowsOf(key.id, 1)).toHaveLength(1);
    } finally {
      gw.mock.reset();
    }
  });

  it('a revoked key closes its socket', async () => {
    const key = await gw.createKey({ email: 'revoked-ws@example.com' });
    const s = connect(key.raw);
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
    const s = connect(key.raw, headers);
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
