import { afterEach, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import {
  type FaultStack,
  recordFigures,
  startFaultStack,
  storedCounts,
  traffic,
  waitUntil,
} from './fault-stack.js';

/**
 * Redis restarted under traffic, on a private redis-server (the shared one is never touched), with
 * the edge and worker as real processes. Measured: what the edge answers while Redis is down, how
 * long after Redis is back the edge's log queue is connected again, and which served requests
 * never reached Postgres.
 */
const DOWN_MS = 3_000;

interface EdgeHealth {
  logs: { pending: number; redisReachable: boolean; spooled: number; replayed: number };
}

let redis: PrivateRedis | undefined;
let stack: FaultStack | undefined;
let t: TestDatabase | undefined;

afterEach(async () => {
  await stack?.close();
  await redis?.destroy();
  await t?.drop();
  stack = redis = t = undefined;
}, 60_000);

async function edgeHealth(url: string): Promise<EdgeHealth> {
  return (await (await fetch(`${url}/healthz`)).json()) as EdgeHealth;
}

async function restartUnderTraffic(label: string, aof: boolean, down: 'stop' | 'kill') {
  t = await createTestDatabase(label);
  redis = await startPrivateRedis({ aof });
  stack = await startFaultStack({ label, databaseUrl: t.url, redisUrl: redis.url });
  await stack.start('worker');
  const edgeUrl = (await stack.start('edge')).url;
  const key = await stack.createKey();
  const load = traffic(edgeUrl, key.raw, 4);
  await waitUntil(
    'warm traffic',
    async () => load.outcomes.filter((o) => o.status === 200).length >= 20,
    20_000,
  );

  const downAt = Date.now();
  await (down === 'stop' ? redis.stop() : redis.kill());
  await new Promise((r) => setTimeout(r, DOWN_MS));
  await redis.start();
  const upAt = Date.now();
  const reconnectMs = await waitUntil(
    'the edge log queue reconnected and empty',
    async () => {
      const { logs } = await edgeHealth(edgeUrl);
      return logs.redisReachable && logs.pending === 0;
    },
    30_000,
  );
  await new Promise((r) => setTimeout(r, 2_000));
  await load.stop();

  const during = load.outcomes.filter((o) => o.at > downAt && o.at < upAt);
  // Requests that were running at some point while Redis was down (they may have ended after).
  const spanning = load.outcomes.filter((o) => o.at > downAt && o.at - o.ms < upAt);
  const after = load.outcomes.filter((o) => o.at > upAt + reconnectMs);
  const served = load.outcomes.filter((o) => o.status === 200);
  return { edgeUrl, downAt, upAt, reconnectMs, during, spanning, after, served };
}

describe('Redis restarted under traffic', () => {
  it('production setting (AOF, appendfsync everysec), clean restart: the edge reconnects and no log or charge is lost', async () => {
    const run = await restartUnderTraffic('redis_aof', true, 'stop');
    expect(run.after.length).toBeGreaterThan(0);
    expect(run.after.filter((o) => o.status !== 200)).toEqual([]);

    const ids = run.served.map((o) => o.requestId!);
    await waitUntil(
      'every served request stored',
      async () => (await storedCounts(stack!.db, ids)).logs.size === ids.length,
      90_000,
    );
    const { logs, charges } = await storedCounts(stack!.db, ids);
    expect({
      missing: ids.filter((id) => logs.get(id) !== 1),
      badCharges: ids.filter((id) => charges.get(id) !== 1),
    }).toEqual({ missing: [], badCharges: [] });
    const health = await edgeHealth(run.edgeUrl);

    recordFigures('redis-restart-aof', {
      ...outageFigures(run),
      logsSpooledByEdge: health.logs.spooled,
      logsReplayedByEdge: health.logs.replayed,
      logsLost: 0,
    });
  }, 180_000);

  it('no persistence, crash (SIGKILL) and restart: the edge recovers; what sat only in Redis is counted', async () => {
    const run = await restartUnderTraffic('redis_nopersist', false, 'kill');
    expect(run.after.length).toBeGreaterThan(0);
    expect(run.after.filter((o) => o.status !== 200)).toEqual([]);

    // Requests answered after the restart are all stored: nothing of the new Redis is lost.
    const afterIds = run.after.filter((o) => o.status === 200).map((o) => o.requestId!);
    await waitUntil(
      'every request after the restart stored',
      async () => (await storedCounts(stack!.db, afterIds)).logs.size === afterIds.length,
      60_000,
    );
    // Before the crash, only jobs still waiting in the dead Redis can be missing.
    const ids = run.served.map((o) => o.requestId!);
    await new Promise((r) => setTimeout(r, 3_000));
    const { logs } = await storedCounts(stack!.db, ids);
    const lost = ids.filter((id) => !logs.has(id));
    expect(lost.every((id) => run.served.find((o) => o.requestId === id)!.at < run.upAt)).toBe(true);

    recordFigures('redis-restart-no-persistence', {
      ...outageFigures(run),
      logsLostWithTheQueue: lost.length,
    });
  }, 180_000);
});

function countBy(values: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** What both restarts record of the outage and the traffic around it (docs/operations.md). */
function outageFigures(run: Awaited<ReturnType<typeof restartUnderTraffic>>): Record<string, unknown> {
  return {
    downMs: run.upAt - run.downAt,
    reconnectMsAfterRedisUp: run.reconnectMs,
    requestsDuringOutage: run.during.length,
    okDuringOutage: run.during.filter((o) => o.status === 200).length,
    statusesDuringOutage: countBy(run.during.map((o) => o.status)),
    requestsOverlappingOutage: run.spanning.length,
    statusesOverlappingOutage: countBy(run.spanning.map((o) => o.status)),
    slowestOverlappingMs: Math.max(...run.spanning.map((o) => o.ms)),
    requestsServed: run.served.length,
  };
}
