import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type AppProcess, spawnApp } from '../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
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
 * SIGTERM to a real edge process: readiness fails first, in-flight streams finish (or are cut at
 * the deadline), the log buffer is flushed (or spooled when Redis is unreachable, and replayed by
 * the next edge), and the process exits 0 within its budget.
 */
const REPLY = 'Every word of this reply reaches the client although the edge was told to stop.';

let stack: FaultStack | undefined;
let t: TestDatabase | undefined;
let redis: PrivateRedis | undefined;

afterEach(async () => {
  await stack?.close();
  await redis?.destroy();
  await t?.drop();
  stack = t = redis = undefined;
}, 60_000);

async function boot(
  label: string,
  edge: Record<string, number>,
  redisUrl = TEST_REDIS_URL,
): Promise<FaultStack> {
  t = await createTestDatabase(label);
  stack = await startFaultStack({
    label,
    databaseUrl: t.url,
    redisUrl,
    config: (c) => ({ ...c, edge: { ...c.edge, ...edge } }),
  });
  await stack.start('worker');
  await stack.start('edge');
  return stack;
}

/** A streaming chat completion: resolves once its first chunk arrived; `rest` is the remainder. */
async function openStream(client: OpenAI) {
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'tell me' }] })
    .withResponse();
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  let text = first.done ? '' : (first.value.choices[0]?.delta.content ?? '');
  const rest = (async () => {
    let finish: string | null = null;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      text += next.value.choices[0]?.delta.content ?? '';
      finish = next.value.choices[0]?.finish_reason ?? finish;
    }
    return { text, finish };
  })();
  rest.catch(() => undefined);
  return { requestId: response.headers.get('x-request-id')!, rest };
}

describe('edge SIGTERM', () => {
  it('fails readiness first, stops accepting, lets in-flight streams finish, flushes their logs, exits 0', async () => {
    const s = await boot('shutdown_drain', { shutdown_delay_ms: 2_000, shutdown_timeout_ms: 10_000 });
    s.mock.setBehaviour({ chunkCount: 20, chunkIntervalMs: 200, reply: REPLY }); // ~4 s streams
    const key = await s.createKey();
    const edge = s.apps.get('edge')!;
    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0 });
    const streams = await Promise.all([openStream(client), openStream(client), openStream(client)]);

    let streamsDone = false;
    const allStreams = Promise.all(streams.map((st) => st.rest)).finally(() => (streamsDone = true));
    const sigtermAt = Date.now();
    const exited = edge.stop();
    // Readiness fails first, while the listener still takes connections (for shutdown_delay_ms):
    // a refused connection before a 503 fails the test. The 10 s bound only stops a hang.
    const readinessFrom = Date.now();
    for (;;) {
      const status = await fetch(`${edge.url}/readyz`).then(
        (r) => r.status,
        () => 'refused' as const,
      );
      if (status === 503) break;
      if (status === 'refused') throw new Error('the listener closed before readiness failed');
      if (Date.now() - readinessFrom > 10_000) throw new Error('readiness to fail: not within 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const readiness = Date.now() - readinessFrom;
    const ready = await fetch(`${edge.url}/readyz`);
    expect(await ready.json()).toEqual({ ready: false, draining: true });
    // Requests that still arrive during shutdown_delay_ms are served, told to close their connection.
    const late = await client.chat.completions
      .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'late' }] })
      .withResponse();
    expect(late.response.status).toBe(200);
    expect(late.response.headers.get('connection')).toBe('close');
    // Then no new connection is accepted, while the streams go on.
    await waitUntil(
      'new connections refused',
      () =>
        fetch(`${edge.url}/healthz`).then(
          () => false,
          () => true,
        ),
      10_000,
    );
    const refusedAfterMs = Date.now() - sigtermAt;
    expect(refusedAfterMs).toBeGreaterThanOrEqual(2_000);
    // The streams outlive the listener: they finish during the drain.
    expect(streamsDone).toBe(false);

    const finished = await allStreams;
    for (const f of finished) expect(f).toEqual({ text: REPLY, finish: 'stop' });
    expect(await exited).toBe(0);
    const shutdownMs = Date.now() - sigtermAt;

    const ids = streams.map((st) => st.requestId);
    await waitUntil('logs stored', async () => (await storedCounts(s.db, ids)).logs.size === 3, 15_000);
    const { logs } = await storedCounts(s.db, ids);
    expect(ids.map((id) => logs.get(id))).toEqual([1, 1, 1]);
    recordFigures('shutdown-drain', {
      streamsInFlight: 3,
      allCompleted: true,
      readinessFailedWithinMs: readiness,
      connectionsRefusedAfterMs: refusedAfterMs,
      shutdownMs,
    });
  }, 120_000);

  it('cuts a stream still running at shutdown_timeout_ms, logs it, and exits 0', async () => {
    const s = await boot('shutdown_cut', { shutdown_delay_ms: 0, shutdown_timeout_ms: 1_000 });
    s.mock.setBehaviour({ chunkCount: 40, chunkIntervalMs: 500 }); // a 20 s stream
    const key = await s.createKey();
    const edge = s.apps.get('edge')!;
    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0 });
    const stream = await openStream(client);

    const sigtermAt = Date.now();
    expect(await edge.stop()).toBe(0);
    const shutdownMs = Date.now() - sigtermAt;
    const cut = await stream.rest.then(
      (r) => r.finish !== 'stop',
      () => true,
    );
    // Cut, and the process exited 0: the deadline ended the drain, not the stream's own end (20 s).
    expect(cut).toBe(true);
    await waitUntil(
      'the cut stream logged',
      async () => (await storedCounts(s.db, [stream.requestId])).logs.size === 1,
      15_000,
    );
    recordFigures('shutdown-cut', { shutdownTimeoutMs: 1_000, shutdownMs });
  }, 120_000);

  it('with Redis unreachable, spools its logs to disk, exits 0 within budget; the next edge replays them', async () => {
    redis = await startPrivateRedis();
    const s = await boot(
      'shutdown_spool',
      { shutdown_delay_ms: 0, shutdown_timeout_ms: 2_000, log_flush_timeout_ms: 500 },
      redis.url,
    );
    const key = await s.createKey();
    const edge = s.apps.get('edge')!;
    const before = traffic(edge.url, key.raw, 2);
    await waitUntil(
      'traffic',
      async () => before.outcomes.filter((o) => o.status === 200).length >= 10,
      20_000,
    );
    await before.stop();
    // Those are in Postgres before Redis goes: a Redis without persistence would lose a queued job.
    const beforeIds = before.outcomes.filter((o) => o.status === 200).map((o) => o.requestId!);
    await waitUntil(
      'logs of the first requests stored',
      async () => (await storedCounts(s.db, beforeIds)).logs.size === beforeIds.length,
      30_000,
    );

    await redis.kill();
    const during = traffic(edge.url, key.raw, 2);
    await waitUntil(
      'requests served without Redis',
      async () => during.outcomes.filter((o) => o.status === 200).length >= 10,
      30_000,
    );
    await during.stop();

    const sigtermAt = Date.now();
    expect(await edge.stop()).toBe(0);
    const shutdownMs = Date.now() - sigtermAt;
    const spoolFiles = readdirSync(s.spoolDir);
    expect(spoolFiles.length).toBeGreaterThan(0);

    await redis.start();
    const replayStartedAt = Date.now();
    await s.start('edge'); // replays the spool at start
    const ids = [...before.outcomes, ...during.outcomes]
      .filter((o) => o.status === 200)
      .map((o) => o.requestId!);
    const replayMs = await waitUntil(
      'every served request stored',
      async () => (await storedCounts(s.db, ids)).logs.size === ids.length,
      60_000,
    );
    const { logs } = await storedCounts(s.db, ids);
    expect(ids.filter((id) => logs.get(id) !== 1)).toEqual([]);
    await waitUntil('the spool emptied', async () => readdirSync(s.spoolDir).length === 0, 10_000);
    recordFigures('shutdown-spool', {
      servedWithoutRedis: during.outcomes.filter((o) => o.status === 200).length,
      shutdownMsWithRedisDown: shutdownMs,
      spoolFiles: spoolFiles.length,
      msFromNewEdgeStartToAllStored: Date.now() - replayStartedAt,
      replayWaitMs: replayMs,
      logsLost: 0,
    });
  }, 180_000);
});

describe('console, router and worker SIGTERM', () => {
  let consoleApp: AppProcess | undefined;
  afterEach(async () => {
    await consoleApp?.stop();
    consoleApp = undefined;
  });

  it('a connection that never sent a request does not hold the stop: each exits 0 at once', async () => {
    // Browsers open such connections ahead of use (preconnect), load balancers too. Node counts
    // them as active, so before every app drained they held its stop until the 30 s budget ran
    // out and the process exited 1.
    const s = await boot('shutdown_others', {});
    consoleApp = await spawnApp('console', s.env, s.config);
    const apps: Array<[string, AppProcess]> = [
      ['console', consoleApp],
      ['router', await s.start('router')],
      ['worker', s.apps.get('worker')!],
    ];
    const figures: Record<string, number> = {};
    for (const [name, app] of apps) {
      const { hostname, port } = new URL(app.url);
      const silent = connect(Number(port), hostname);
      silent.on('error', () => undefined);
      await once(silent, 'connect');
      // Not events.once: it would reject on a reset, which is as good as a close here.
      const closedByServer = new Promise<void>((resolve) => silent.once('close', () => resolve()));
      const sigtermAt = Date.now();
      expect({ name, exit: await app.stop() }).toEqual({ name, exit: 0 });
      await closedByServer;
      figures[`${name}ShutdownMs`] = Date.now() - sigtermAt;
    }
    recordFigures('shutdown-other-apps', figures);
  }, 120_000);
});
