import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_QUEUE,
  type RequestLogJob,
} from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { requestLogJob } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { StreamMarkers } from '../streams/stream-markers.store.js';
import { LogShipper } from './log-shipper.service.js';

const spoolDirs: string[] = [];

/**
 * Flushes happen only when a test calls flush(): no size or time trigger within a test. A send
 * gets 10 s: the 500 ms this had failed the first send of a test (its connection still coming up)
 * or a large one on a loaded machine; a test about the bound sets its own.
 */
function shipperConfig(edge: Record<string, unknown> = {}) {
  const spool = mkdtempSync(join(tmpdir(), 'gw-spool-'));
  spoolDirs.push(spool);
  return parseConfig({
    edge: {
      log_flush_interval_ms: 60_000,
      log_flush_max_batch: 1_000_000,
      log_flush_timeout_ms: 10_000,
      log_spool_dir: spool,
      ...edge,
    },
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { default: ['m'] },
  });
}

/** Every log in the spool directory, in file order. */
function spooledLogs(dir: string): RequestLogJob[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as RequestLogJob),
    );
}

/** A TCP relay to the test Redis that can drop every connection and refuse new ones at will. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private accepting = true;
  private readonly server: Server = createServer((client) => {
    if (!this.accepting) return void client.destroy();
    const target = new URL(TEST_REDIS_URL);
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => (this.sockets.delete(a), b.destroy()));
      a.pipe(b);
    }
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('relay has no port');
    const url = new URL(TEST_REDIS_URL);
    url.hostname = '127.0.0.1';
    url.port = String(address.port);
    return url.toString();
  }

  /** Redis becomes unreachable: open connections drop, new ones are closed at once. */
  cut(): void {
    this.accepting = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.accepting = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const prefixes: string[] = [];
const shippers: LogShipper[] = [];
const queues: Queue[] = [];
let reader: Redis;

/** A LogShipper on its own key prefix and spool directory, and a queue handle to read what it sent. */
function setup(
  redisUrl = TEST_REDIS_URL,
  edge: Record<string, unknown> = {},
): { shipper: LogShipper; queue: Queue; prefix: string; spool: string; make: (url?: string) => LogShipper } {
  const prefix = uniqueRedisPrefix('shipper');
  prefixes.push(prefix);
  const keys = redisKeys(prefix);
  const config = shipperConfig(edge);
  const make = (url = redisUrl): LogShipper => {
    const env = readEnv({ REDIS_URL: url, REDIS_PREFIX: prefix });
    const shipper = new LogShipper(env, keys, config, new StreamMarkers(env, keys, config));
    shippers.push(shipper);
    return shipper;
  };
  const queue = new Queue(REQUEST_LOG_QUEUE, { connection: reader, prefix: keys.bullPrefix });
  queues.push(queue);
  return { shipper: make(), queue, prefix, spool: config.edge.log_spool_dir, make };
}

/**
 * Every job in the queue (none is processed here), in the order of `sent`, the logs given to the
 * shipper: each job must be a slice of them.
 */
async function queued(
  queue: Queue,
  sent: readonly RequestLogJob[],
): Promise<Array<{ id: string; name: string; logs: RequestLogJob[] }>> {
  const position = new Map(sent.map((log, i) => [log.requestId, i]));
  const jobs = (await queue.getWaiting(0, -1)).map((j) => ({
    id: j.id!,
    name: j.name,
    logs: (j.data as { logs: RequestLogJob[] }).logs,
  }));
  const first = (job: (typeof jobs)[number]) => position.get(job.logs[0]?.requestId ?? '') ?? -1;
  return jobs.sort((a, b) => first(a) - first(b));
}

const byId = (a: RequestLogJob, b: RequestLogJob): number => a.requestId.localeCompare(b.requestId);

/**
 * Why the final flush of `shipper`'s shutdown spooled the logs it held (the shipper's warning,
 * past "N logs spooled at shutdown: "); null when it shipped them.
 */
async function shutdownSpoolReason(shipper: LogShipper): Promise<string | null> {
  const warnings: string[] = [];
  const ignore = () => undefined;
  Logger.overrideLogger({ log: ignore, error: ignore, warn: (m: unknown) => void warnings.push(String(m)) });
  try {
    await shipper.onApplicationShutdown();
  } finally {
    Logger.overrideLogger(['error']);
  }
  shippers.splice(shippers.indexOf(shipper), 1);
  const said = warnings.find((m) => / logs spooled at shutdown: /.test(m));
  return said === undefined ? null : said.replace(/^\d+ logs spooled at shutdown: /, '');
}

async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(() => {
  reader = createRedis(TEST_REDIS_URL, { forBullmq: true });
  // The shipper warns on every failed flush; the tests cause those on purpose.
  Logger.overrideLogger(['error']);
});

afterEach(async () => {
  for (const s of shippers.splice(0)) await s.onApplicationShutdown();
  for (const q of queues.splice(0)) await q.close();
});

afterAll(async () => {
  reader.disconnect();
  for (const p of prefixes) await dropRedisPrefix(p);
  for (const d of spoolDirs) rmSync(d, { recursive: true, force: true });
});

describe('LogShipper', () => {
  it.each([1, MAX_LOGS_PER_JOB, 2 * MAX_LOGS_PER_JOB + 500])(
    'ships %i logs in one flush as jobs of at most MAX_LOGS_PER_JOB logs',
    async (n) => {
      const { shipper, queue } = setup();
      const logs = Array.from({ length: n }, () => requestLogJob());
      for (const log of logs) shipper.enqueue(log);
      expect(shipper.pending).toBe(n);
      await shipper.flush();

      const jobs = await queued(queue, logs);
      expect(jobs).toHaveLength(Math.ceil(n / MAX_LOGS_PER_JOB));
      expect(jobs.flatMap((j) => j.logs)).toEqual(logs);
      for (const job of jobs) {
        expect(job.name).toBe(REQUEST_LOG_BATCH_JOB);
        expect(job.logs.length).toBeLessThanOrEqual(MAX_LOGS_PER_JOB);
        expect(job.id).toBe(logBatchJobId(job.logs));
      }
      expect(shipper.shipped).toBe(n);
      expect(shipper.pending).toBe(0);
    },
    30_000,
  );

  it('fails a flush at once while Redis is unreachable, keeps the logs and ships them once it is back', async () => {
    const relay = new Relay();
    const { shipper, queue } = setup(await relay.start());
    try {
      const before = [requestLogJob(), requestLogJob()];
      for (const log of before) shipper.enqueue(log);
      await shipper.flush();
      expect(shipper.shipped).toBe(2);

      relay.cut();
      const during = [requestLogJob(), requestLogJob(), requestLogJob()];
      for (const log of during) shipper.enqueue(log);
      // Bounded: the flush settles (within log_flush_timeout_ms at worst) instead of waiting on Redis.
      await shipper.flush();
      expect(shipper.status).toMatchObject({ shipped: 2, pending: 3, redisReachable: false });
      const later = requestLogJob();
      shipper.enqueue(later);
      expect(shipper.pending).toBe(4);

      relay.restore();
      await waitFor('the retry after Redis is back', () => shipper.shipped === 6);
      expect(shipper.status).toMatchObject({ pending: 0, redisReachable: true, spooled: 0 });
      const sent = [...before, ...during, later];
      const jobs = await queued(queue, sent);
      expect(jobs.flatMap((j) => j.logs)).toEqual(sent);
    } finally {
      await relay.stop();
    }
  });

  it('spills to the spool once log_buffer_max logs wait, and replays them when Redis is back', async () => {
    const relay = new Relay();
    const { shipper, queue, spool } = setup(await relay.start(), { log_buffer_max: 5 });
    try {
      relay.cut();
      const logs = Array.from({ length: 7 }, () => requestLogJob());
      for (const log of logs.slice(0, 3)) shipper.enqueue(log);
      await shipper.flush(); // fails: Redis is unreachable from here on
      for (const log of logs.slice(3)) shipper.enqueue(log);
      // The fifth log filled the buffer: all five went to disk, memory holds the two after them.
      expect(shipper.status).toMatchObject({ pending: 2, spooled: 5, redisReachable: false });
      expect(spooledLogs(spool)).toEqual(logs.slice(0, 5));

      relay.restore();
      await waitFor('replay and flush', () => shipper.replayed === 5 && shipper.shipped === 2);
      expect(readdirSync(spool)).toEqual([]);
      const jobs = await queued(queue, logs);
      expect(jobs.flatMap((j) => j.logs).sort(byId)).toEqual([...logs].sort(byId));
    } finally {
      await relay.stop();
    }
  });

  it('shuts down without waiting on a Redis that never comes up, spooling what it held', async () => {
    // Nothing listens on port 1: the queue's connection never comes up. The final flush gives up
    // (at the connection's refusal, else at log_flush_timeout_ms) and spools; a shutdown waiting
    // on the connection would never end (the test's timeout fails it).
    const { shipper, spool, make, queue } = setup('redis://127.0.0.1:1');
    const logs = [requestLogJob(), requestLogJob(), requestLogJob()];
    for (const log of logs) shipper.enqueue(log);
    expect(await shutdownSpoolReason(shipper)).not.toBeNull();
    expect(spooledLogs(spool)).toEqual(logs);
    // A log finished after the final flush goes straight to disk.
    const late = requestLogJob();
    shipper.enqueue(late);
    expect(spooledLogs(spool)).toEqual([...logs, late]);

    // The next edge on this spool directory replays it at start.
    const next = make(TEST_REDIS_URL);
    next.onApplicationBootstrap();
    await waitFor('replay at start', () => next.replayed === 4);
    expect(readdirSync(spool)).toEqual([]);
    expect((await queued(queue, [...logs, late])).flatMap((j) => j.logs)).toEqual([...logs, late]);
  }, 30_000);

  it('spools at once at shutdown while Redis is known down, instead of waiting out log_flush_timeout_ms', async () => {
    const relay = new Relay();
    // A flush timeout past the test's own: a shutdown that waited it out fails by timing out.
    const { shipper, spool } = setup(await relay.start(), { log_flush_timeout_ms: 60_000 });
    try {
      await waitFor('the queue connection', () => shipper.status.redisReachable);
      await relay.stop(); // refuses connections from here on, as a stopped Redis does
      const logs = [requestLogJob(), requestLogJob(), requestLogJob()];
      for (const log of logs.slice(0, 2)) shipper.enqueue(log);
      await shipper.flush(); // fails at once: the outage is known from here on
      expect(shipper.status).toMatchObject({ pending: 2, redisReachable: false });
      // ioredis's reconnect attempts back off (50 ms more each): a few seconds into an outage the
      // next one is several hundred ms away, and a send waited for it.
      await new Promise((r) => setTimeout(r, 3_000));
      shipper.enqueue(logs[2]!);

      // The send waited for the next reconnect attempt, up to the flush timeout (the stop took
      // 0.2-2.8 s with a 2 s one): now the outage known, it is refused without waiting.
      expect(await shutdownSpoolReason(shipper)).toBe('Redis unreachable at shutdown');
      expect(spooledLogs(spool)).toEqual(logs);
    } finally {
      await relay.stop().catch(() => undefined);
    }
  }, 20_000);

  it('says Redis is unreachable once the queue connection fails, before any flush does', async () => {
    const relay = new Relay();
    // A flush timeout past the test's own: a shutdown that waited it out fails by timing out.
    const { shipper, spool } = setup(await relay.start(), { log_flush_timeout_ms: 60_000 });
    try {
      await shipper.flush(); // nothing buffered: the connection comes up on its own
      await waitFor('the queue connection', () => shipper.status.redisReachable);
      relay.cut();
      // No log, so no flush fails: only the connection can tell.
      await waitFor('Redis reported unreachable', () => !shipper.status.redisReachable);
      const log = requestLogJob();
      shipper.enqueue(log);
      // Known down by the connection alone: the shutdown's send is refused without waiting.
      expect(await shutdownSpoolReason(shipper)).toBe('Redis unreachable at shutdown');
      expect(spooledLogs(spool)).toEqual([log]);
    } finally {
      await relay.stop();
    }
  }, 30_000);

  it('shares a spool directory: a finished file is replayed once by one edge, a file still being written waits', async () => {
    const { make, spool, queue } = setup();
    const finished = [requestLogJob(), requestLogJob(), requestLogJob()];
    const writing = [requestLogJob()];
    const line = (logs: RequestLogJob[]) => logs.map((l) => JSON.stringify(l)).join('\n') + '\n';
    writeFileSync(join(spool, `logs-${Date.now() - 1_000}-a1-b2c3d4.done.jsonl`), line(finished));
    const live = `logs-${Date.now()}-a2-e5f6a7.jsonl`; // another edge appended to it just now
    writeFileSync(join(spool, live), line(writing));

    const [a, b] = [make(), make()];
    a.onApplicationBootstrap();
    b.onApplicationBootstrap();
    await waitFor('replay', () => a.replayed + b.replayed === 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(a.replayed + b.replayed).toBe(3); // claimed by one of them only
    expect(readdirSync(spool)).toEqual([live]);
    expect((await queued(queue, finished)).flatMap((j) => j.logs)).toEqual(finished);
  });

  it('replays a spool file cut by a crash mid-write, skipping only the torn line', async () => {
    const { make, spool, queue } = setup();
    const logs = [requestLogJob(), requestLogJob()];
    const lines = logs.map((l) => JSON.stringify(l)).join('\n');
    // Left by an edge that crashed a minute ago (never finished: replayed once quiet for 10 s).
    const name = join(spool, `logs-${Date.now() - 60_000}-1-abc123.jsonl`);
    writeFileSync(name, `${lines}\n{"v":1,"requestId":"req_tor`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(name, minuteAgo, minuteAgo);
    const shipper = make();
    shipper.onApplicationBootstrap();
    await waitFor('replay', () => shipper.replayed === 2);
    expect(readdirSync(spool)).toEqual([]);
    expect((await queued(queue, logs)).flatMap((j) => j.logs)).toEqual(logs);
  });

  it('clears the start markers of streamed requests once their logs are in the queue, or spooled', async () => {
    const prefix = uniqueRedisPrefix('markers');
    prefixes.push(prefix);
    const keys = redisKeys(prefix);
    const config = shipperConfig();
    const env = readEnv({ REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix });
    // Its queue never reaches Redis (nothing listens on port 1), its markers do: the spool path.
    const unreachable = readEnv({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: prefix });
    const shipped = new StreamMarkers(env, keys, config);
    const spooled = new StreamMarkers(env, keys, config);
    const a = new LogShipper(env, keys, config, shipped);
    const b = new LogShipper(unreachable, keys, config, spooled);
    shippers.push(a, b);
    queues.push(new Queue(REQUEST_LOG_QUEUE, { connection: reader, prefix: keys.bullPrefix }));
    const streamed = (markers: StreamMarkers) => {
      const log = requestLogJob({ stream: true, userId: 'u', keyId: 'k' });
      void markers.open({ ...log, v: 1, keyId: 'k', userId: 'u', group: 'g', model: 'm', inputTokens: 3 });
      return log;
    };
    const [one, two, kept] = [streamed(shipped), streamed(spooled), streamed(shipped)];
    const open = async (markers: StreamMarkers) =>
      (await reader.hkeys(keys.edgeStreams(markers.instance))).sort();
    // The markers' connection comes up on its own time; the writes were handed to it.
    for (let n = 0; (await reader.hlen(keys.edgeStreams(shipped.instance))) < 2; n++) {
      if (n > 100) throw new Error('markers not written');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await open(shipped)).toEqual([one.requestId, kept.requestId].sort());
    expect(await open(spooled)).toEqual([two.requestId]);

    a.enqueue(one);
    a.enqueue(requestLogJob()); // not a stream: nothing to clear
    await a.flush();
    b.enqueue(two);
    await b.onApplicationShutdown(); // its final flush fails and spools
    // Shut down, each has sent its clears and seen its QUIT answered, so Redis ran them.
    await a.onApplicationShutdown();
    shippers.splice(0);

    expect(await open(shipped)).toEqual([kept.requestId]);
    expect(await open(spooled)).toEqual([]);
  });

  it('keeps the logs of a flush Redis refuses and retries them', async () => {
    const { shipper, queue, prefix } = setup();
    // The job id counter holding a non-number: BullMQ's add script fails before writing anything.
    const idKey = `${redisKeys(prefix).bullPrefix}:${REQUEST_LOG_QUEUE}:id`;
    await reader.set(idKey, 'not a number');
    const logs = [requestLogJob(), requestLogJob()];
    for (const log of logs) shipper.enqueue(log);
    await shipper.flush();
    expect(shipper.shipped).toBe(0);
    expect(shipper.pending).toBe(2);
    expect(await queued(queue, logs)).toEqual([]);

    await reader.del(idKey);
    await waitFor('the retry', () => shipper.shipped === 2);
    const jobs = await queued(queue, logs);
    expect(jobs).toEqual([{ id: logBatchJobId(logs), name: REQUEST_LOG_BATCH_JOB, logs }]);
  });
});
