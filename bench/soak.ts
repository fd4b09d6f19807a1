/**
 * `npm run soak`: the built stack (mock, router, worker, edge, as `npm run bench` starts them)
 * under steady wrk load for SOAK_MINUTES (default 3), sampling every SOAK_SAMPLE_SECONDS (default
 * 5) the RSS of each process, the BullMQ queue depth, the edge's log buffer and Redis memory.
 * Prints a table per sample, early-vs-late trends, and checks that every log shipped was written.
 * Its own database and Redis prefix (gateway_soak_bench, soak-bench); torn down at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createRedis } from '#libs/redis';
import { countRequestLogRows, dropBenchData, LogQueueBacklog } from './data.js';
import { machineFacts, rssKb } from './proc-stats.js';
import { ProcessGroup } from './processes.js';
import { chatBody, LOAD_CPU, MOCK_BEHAVIOUR, readSettings } from './settings.js';
import { type SoakSample, samplesTable, trends, trendsTable } from './soak-summary.js';
import {
  configureMock,
  edgeHealth,
  gatewayEnv,
  pickPorts,
  prepareDatabase,
  startStack,
  STOP_ORDER,
  waitForRouterRoutes,
  writeBenchConfig,
} from './stack.js';
import { runWrk } from './wrk.js';

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

const minutes = positiveNumber('SOAK_MINUTES', 3);
const sampleSeconds = positiveNumber('SOAK_SAMPLE_SECONDS', 5);
const connections = positiveNumber('SOAK_CONNECTIONS', 16);
const settings = readSettings({
  ...process.env,
  BENCH_DATABASE_URL:
    process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/gateway_soak_bench',
  BENCH_REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX || 'soak-bench',
});

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench/soak.js -> repo root
const started = Date.now();
const log = (line: string): void =>
  console.log(`[soak ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}`);
const resultsDir = join(root, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}-soak`);
const logDir = join(resultsDir, 'logs');
mkdirSync(logDir, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'gateway-soak-'));
const group = new ProcessGroup(root, logDir);
const redis = createRedis(settings.redisUrl, { name: 'soak-sampler' });
let backlog: LogQueueBacklog | null = null;

let tearingDown: Promise<void> | null = null;
function teardown(): Promise<void> {
  tearingDown ??= (async () => {
    await backlog?.close().catch(() => undefined);
    redis.disconnect();
    await group.stopAll(STOP_ORDER);
    if (!settings.keepData) await dropBenchData(settings, log);
    rmSync(scratch, { recursive: true, force: true });
  })();
  return tearingDown;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => void teardown().finally(() => process.exit(130)));
process.on('exit', () => group.killAllNow());

async function redisUsedMb(): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0) / 1024 / 1024;
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return rssKb(pid, 'VmRSS') / 1024;
  } catch {
    return 0; // exited: assertAlive() reports it
  }
}

/** Waits until the edge's buffer and the queue are empty; returns how long that took. */
async function drained(queue: LogQueueBacklog, edgeUrl: string, timeoutMs = 120_000): Promise<number> {
  const start = Date.now();
  while ((await queue.counts()).pending + (await edgeHealth(edgeUrl)).logs.pending > 0) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`logs still queued ${timeoutMs / 1000} s after the load`);
    await sleep(100);
  }
  return Date.now() - start;
}

async function main(): Promise<void> {
  const machine = machineFacts();
  execFileSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
  await dropBenchData(settings);
  const ports = await pickPorts();
  const env = gatewayEnv(settings, ports, writeBenchConfig(root, scratch, ports.mock));
  const apiKey = await prepareDatabase(group, env);
  const stack = await startStack(group, root, env, apiKey, settings.edgeNodeFlags);
  await waitForRouterRoutes(stack.edgeUrl);
  await configureMock(stack.mockUrl, MOCK_BEHAVIOUR);
  const bodyFile = join(scratch, 'chat.json');
  writeFileSync(bodyFile, chatBody(false));
  backlog = new LogQueueBacklog(settings);
  const pids = (): Record<string, number | undefined> => ({
    edge: stack.edge.pid,
    router: group.pidOf('router'),
    worker: group.pidOf('worker'),
    mock: group.pidOf('mock-provider'),
  });
  log(`${minutes} min of non-stream chat at ${connections} connections, a sample every ${sampleSeconds} s`);

  const loadStart = Date.now();
  const wrk = runWrk(group, {
    url: `${stack.edgeUrl}/v1/chat/completions`,
    connections,
    seconds: Math.round(minutes * 60),
    bodyFile,
    apiKey,
  });
  let done = false;
  void wrk.finally(() => (done = true)).catch(() => undefined);
  const samples: SoakSample[] = [];
  while (!done) {
    group.assertAlive();
    const [counts, health, redisMb] = await Promise.all([
      backlog.counts(),
      edgeHealth(stack.edgeUrl),
      redisUsedMb(),
    ]);
    const rss = Object.fromEntries(Object.entries(pids()).map(([name, pid]) => [name, rssMb(pid)]));
    const sample = {
      t: Math.round((Date.now() - loadStart) / 1000),
      rssMb: rss,
      queueJobs: counts.pending,
      edgeBuffered: health.logs.pending,
      redisMb,
    };
    samples.push(sample);
    log(
      `t=${sample.t}s ${Object.entries(rss)
        .map(([n, mb]) => `${n} ${mb.toFixed(0)} MB`)
        .join(', ')}; queue ${counts.pending} jobs; edge buffer ${health.logs.pending}`,
    );
    await Promise.race([sleep(sampleSeconds * 1000), wrk.catch(() => undefined)]);
  }
  const result = await wrk;
  const drainMs = await drained(backlog, stack.edgeUrl);
  const shipped = (await edgeHealth(stack.edgeUrl)).logs.shipped;
  const rows = await countRequestLogRows(settings);
  const failedJobs = (await backlog.counts()).failed;

  const report = [
    `Soak: ${minutes} min, wrk -t1 -c${connections}, non-stream chat through the edge (mock upstream).`,
    `Machine: ${machine.nproc} CPUs (${machine.cpuModel}), node ${machine.node}.`,
    `Load: ${result.requests} requests, ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${result.errors} errors.`,
    `Logs: edge shipped ${shipped}, worker wrote ${rows} rows, ${failedJobs} failed jobs; queue drained ${drainMs} ms after the load stopped.`,
    '',
    trendsTable(trends(samples)),
    '',
    samplesTable(samples),
  ].join('\n');
  console.log(`\n${report}`);
  writeFileSync(join(resultsDir, 'soak.md'), `${report}\n`);
  writeFileSync(
    join(resultsDir, 'soak.json'),
    JSON.stringify({ minutes, connections, result, drainMs, shipped, rows, failedJobs, samples }, null, 2),
  );
  log(`written to ${resultsDir}`);
  if (rows !== shipped || failedJobs > 0)
    throw new Error(`logs lost: shipped ${shipped}, stored ${rows}, failed jobs ${failedJobs}`);
}

main()
  .then(() => teardown())
  .catch(async (err: unknown) => {
    console.error(err);
    await teardown();
    process.exitCode = 1;
  });
