import { afterEach, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { completedOf, Session } from '../support/responses-socket.js';
import { type FaultStack, recordFigures, startFaultStack, waitUntil } from './fault-stack.js';

/**
 * SIGTERM to a real edge process with a Responses WebSocket open and a response in flight: the
 * response ends (whole within the drain, or cut at its deadline), the client is told the server
 * is going away and the socket closes 1001, the response is logged and charged once, and the
 * process exits 0.
 */
let stack: FaultStack | undefined;
let t: TestDatabase | undefined;

afterEach(async () => {
  await stack?.close();
  await t?.drop();
  stack = t = undefined;
}, 60_000);

async function boot(label: string, edge: Record<string, number>): Promise<FaultStack> {
  t = await createTestDatabase(label);
  stack = await startFaultStack({
    label,
    databaseUrl: t.url,
    redisUrl: TEST_REDIS_URL,
    config: (c) => ({ ...c, edge: { ...c.edge, ...edge } }),
  });
  await stack.start('worker');
  await stack.start('edge');
  return stack;
}

/** The key's log rows and charges, once `n` rows are stored. */
async function storedFor(s: FaultStack, keyId: string, n: number) {
  await waitUntil(
    'the response logged',
    async () =>
      (await s.db.selectFrom('request_logs').select('request_id').where('key_id', '=', keyId).execute())
        .length >= n,
    15_000,
  );
  const rows = await s.db.selectFrom('request_logs').selectAll().where('key_id', '=', keyId).execute();
  const charges = await s.db
    .selectFrom('charges')
    .select('request_id')
    .where(
      'request_id',
      'in',
      rows.map((r) => r.request_id),
    )
    .execute();
  return { rows, charges };
}

describe('edge SIGTERM with a Responses WebSocket open', () => {
  it('lets the response in flight finish, then closes 1001; one log row, one charge', async () => {
    const s = await boot('ws_shutdown_drain', { shutdown_delay_ms: 0, shutdown_timeout_ms: 15_000 });
    s.mock.setBehaviour({ chunkCount: 20, chunkIntervalMs: 100 });
    const key = await s.createKey();
    const edge = s.apps.get('edge')!;
    const ws = new Session(`${edge.url}/v1`, key.raw);
    ws.ws.send({ type: 'response.create', model: 'mock-gpt', input: 'tell me' } as never);
    await ws.until((e) => e.type === 'response.output_text.delta');

    const sigtermAt = Date.now();
    const exited = edge.stop();
    const rest = await ws.until((e) => e.type === 'response.completed');
    expect(completedOf(rest).status).toBe('completed');
    expect(await ws.next()).toMatchObject({
      type: 'error',
      status: 503,
      error: { code: 'server_shutting_down' },
    });
    expect(await ws.next()).toMatchObject({ type: 'close', code: 1001 });
    expect(await exited).toBe(0);
    recordFigures('ws-shutdown-drain', { shutdownMs: Date.now() - sigtermAt });

    const { rows, charges } = await storedFor(s, key.keyId, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.error_code).toBeNull();
    expect(charges).toHaveLength(1);
  }, 120_000);

  it('cuts a response still running at shutdown_timeout_ms, closes 1001, logs and charges it once', async () => {
    const s = await boot('ws_shutdown_cut', { shutdown_delay_ms: 0, shutdown_timeout_ms: 1_000 });
    s.mock.setBehaviour({ chunkCount: 40, chunkIntervalMs: 500 }); // a 20 s stream
    const key = await s.createKey();
    const edge = s.apps.get('edge')!;
    const ws = new Session(`${edge.url}/v1`, key.raw);
    ws.ws.send({ type: 'response.create', model: 'mock-gpt', input: 'tell me' } as never);
    await ws.until((e) => e.type === 'response.output_text.delta');

    const sigtermAt = Date.now();
    expect(await edge.stop()).toBe(0);
    recordFigures('ws-shutdown-cut', { shutdownTimeoutMs: 1_000, shutdownMs: Date.now() - sigtermAt });
    const rest = await ws.until((e) => e.type === 'close');
    expect(rest.at(-1)).toMatchObject({ type: 'close', code: 1001 });
    expect(rest.some((e) => e.type === 'response.completed')).toBe(false);

    const { rows, charges } = await storedFor(s, key.keyId, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.error_code).toBe('client_disconnected');
    expect(Number(rows[0]!.cost_nanos)).toBeGreaterThan(0);
    expect(charges).toHaveLength(1);
  }, 120_000);
});
