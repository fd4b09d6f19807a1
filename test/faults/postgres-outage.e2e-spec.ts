import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-servers.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import {
  type FaultStack,
  recordFigures,
  startFaultStack,
  storedCounts,
  traffic,
  waitUntil,
} from './fault-stack.js';

/**
 * Postgres stopped for 30 s under traffic, on a private Postgres server (the shared one is never
 * touched): the edge keeps serving a key it knows, the worker's jobs fail and wait, and once
 * Postgres is back every request answered is in request_logs and charges exactly once.
 */
const OUTAGE_MS = 30_000;

let pg: PrivatePostgres;
let stack: FaultStack;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  stack = await startFaultStack({
    label: 'pg-outage',
    databaseUrl: pg.url('gateway'),
    redisUrl: TEST_REDIS_URL,
  });
  await stack.start('worker');
  await stack.start('edge');
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await pg?.destroy();
}, 60_000);

describe('Postgres stopped for 30 s under traffic', () => {
  it('keeps serving known keys, then drains every log and charge exactly once', async () => {
    const key = await stack.createKey();
    const edgeUrl = stack.apps.get('edge')!.url;
    const load = traffic(edgeUrl, key.raw, 4);
    // Warm: the key is now in the edge's memory and in Redis.
    await waitUntil(
      'warm traffic',
      async () => load.outcomes.filter((o) => o.status === 200).length >= 20,
      20_000,
    );

    const stoppedAt = Date.now();
    await pg.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - stoppedAt)));
    const during = load.outcomes.filter((o) => o.at > stoppedAt);
    await pg.start();
    const restartedAt = Date.now();
    // A little more traffic with Postgres back, then stop and count.
    await new Promise((r) => setTimeout(r, 2_000));
    await load.stop();

    const served = load.outcomes.filter((o) => o.status === 200);
    const ids = served.map((o) => o.requestId!);
    expect(during.length).toBeGreaterThan(50);
    expect(during.filter((o) => o.status !== 200)).toEqual([]);

    const drainMs = await waitUntil(
      'every served request stored',
      async () => (await storedCounts(stack.db, ids)).logs.size === ids.length,
      120_000,
    );
    const { logs, charges } = await storedCounts(stack.db, ids);
    const missing = ids.filter((id) => logs.get(id) !== 1);
    const badCharges = ids.filter((id) => charges.get(id) !== 1);
    expect({ missing, badCharges }).toEqual({ missing: [], badCharges: [] });

    recordFigures('postgres-outage', {
      outageMs: restartedAt - stoppedAt,
      requestsServed: served.length,
      requestsDuringOutage: during.length,
      errorsDuringOutage: during.filter((o) => o.status !== 200).length,
      msFromPostgresBackToAllStored: Date.now() - restartedAt,
      drainMsAfterTrafficStopped: drainMs,
      logsLost: missing.length,
      chargesLostOrDoubled: badCharges.length,
    });
  }, 240_000);
});
