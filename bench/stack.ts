import { execFileSync } from 'node:child_process';
import { APP_NODE_FLAGS } from '#libs/runtime';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { httpOk, waitUntil } from '../scripts/start/probe.js';
import { type ProcessGroup, type Started } from './processes.js';
import { pidsByCommand, processTree } from './proc-stats.js';
import { type BenchSettings, EDGE_CPU, LOAD_CPU } from './settings.js';

const READY_TIMEOUT_MS = 120_000;
const EDGE_MAIN = 'dist/apps/edge/src/main.js';
const PROFILE_HOOK = 'dist/bench/profile-hook.js';
const RUNTIME_HOOK = 'dist/bench/runtime-hook.js';
/**
 * Niceness of the processes that share the load CPU with the mock and wrk but are not on a
 * request's path (worker, router, Postgres): in production they run on other machines; here their
 * log batches, at normal priority, held the mock's CPU for milliseconds in the middle of requests.
 */
export const LOG_PIPELINE_NICE = 19;

export interface Ports {
  readonly mock: number;
  readonly edge: number;
  readonly router: number;
  readonly worker: number;
}

export interface Stack {
  readonly mockUrl: string;
  readonly edgeUrl: string;
  readonly apiKey: string;
  readonly edge: Started;
}

/** A port the kernel just handed out; free unless something grabs it in the next instant. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

export async function pickPorts(): Promise<Ports> {
  const [mock, edge, router, worker] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  return { mock: mock!, edge: edge!, router: router!, worker: worker! };
}

const isLoopback = (url: string): boolean =>
  ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);

/**
 * config/gateway.yaml with only the local demo providers, pointed at the bench's mock. Real vendors
 * are dropped, so nothing (not even the router's probes) leaves the machine.
 */
export function writeBenchConfig(root: string, dir: string, mockPort: number): string {
  const doc = parse(readFileSync(join(root, 'config/gateway.yaml'), 'utf8')) as {
    providers: { base_url: string }[];
  };
  doc.providers = doc.providers
    .filter((p) => isLoopback(p.base_url))
    .map((p) => {
      const url = new URL(p.base_url);
      url.hostname = '127.0.0.1';
      url.port = String(mockPort);
      return { ...p, base_url: url.toString().replace(/\/$/, '') };
    });
  if (doc.providers.length === 0) throw new Error('config/gateway.yaml has no loopback (demo) provider');
  const path = join(dir, 'gateway.yaml');
  writeFileSync(path, stringify(doc));
  return path;
}

export function gatewayEnv(settings: BenchSettings, ports: Ports, configPath: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GATEWAY_CONFIG: configPath,
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    REDIS_PREFIX: settings.redisPrefix,
    HOST: '127.0.0.1',
    EDGE_PORT: String(ports.edge),
    ROUTER_PORT: String(ports.router),
    WORKER_PORT: String(ports.worker),
    MOCK_PROVIDER_HOST: '127.0.0.1',
    MOCK_PROVIDER_PORT: String(ports.mock),
    NO_COLOR: '1',
  };
}

const node = (
  name: string,
  cpu: number | string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nice?: number,
  extraFlags: readonly string[] = [],
) => ({
  name,
  cpu,
  ...(nice === undefined ? {} : { nice }),
  command: process.execPath,
  // The flags production runs with: the bench measures what `npm start` and the image run. A
  // variant's own flags come after them, so V8 takes its value of a flag given twice.
  args: [...APP_NODE_FLAGS, ...extraFlags, ...args],
  env,
});

async function ready(name: string, url: string): Promise<void> {
  if (!(await waitUntil(() => httpOk(url), { timeoutMs: READY_TIMEOUT_MS, intervalMs: 100 })))
    throw new Error(`${name} not ready at ${url} after ${READY_TIMEOUT_MS / 1000} s`);
}

/** Migrations and a fresh key, run as the operator would (`npm run migrate`, `npm run key:create`). */
export async function prepareDatabase(group: ProcessGroup, env: NodeJS.ProcessEnv): Promise<string> {
  await group.run(node('migrate', LOAD_CPU, ['dist/libs/db/src/migrate.main.js'], env));
  const out = await group.run(
    node(
      'key-create',
      LOAD_CPU,
      ['dist/scripts/key-create.js', '--email', 'bench@example.com', '--group', 'default', '--name', 'bench'],
      env,
    ),
  );
  const key = /^(sk-[0-9A-Za-z]+)$/m.exec(out)?.[1];
  if (!key) throw new Error(`key-create printed no key:\n${out}`);
  return key;
}

/**
 * CPUs of an edge of `processes` processes, as a `taskset -c` list: EDGE_CPU first, then the CPUs
 * the bench leaves free (above LOAD_CPU), and LOAD_CPU only when no other is left: `0` for one
 * process; `0,2` for two on a 4-CPU machine; `0,1` for two on a 2-CPU one, sharing the load's CPU.
 */
export function edgeCpus(processes: number, nproc = availableParallelism()): string {
  const free = Array.from({ length: nproc }, (_, i) => i).filter((c) => c !== EDGE_CPU && c !== LOAD_CPU);
  return [EDGE_CPU, ...free, LOAD_CPU].slice(0, Math.max(1, processes)).join(',');
}

export interface EdgeOptions {
  /** EDGE_PROCESSES (default 1). */
  readonly processes?: number;
  /** Preload the on-demand profiler (profile-hook.ts), writing here (one process only). */
  readonly profileFile?: string;
  /** Which profiler: V8's CPU profiler (default) or its sampling heap profiler. */
  readonly profileKind?: 'cpu' | 'heap';
  /** Node flags after the production ones (BENCH_EDGE_NODE_OPTIONS). */
  readonly nodeFlags?: readonly string[];
}

/**
 * Where a one-process edge without the profiler writes its event-loop and GC figures
 * (runtime-hook.ts); null for the others, whose figures are not read.
 */
export function runtimeStatsFile(
  env: NodeJS.ProcessEnv,
  processes: number,
  profiled: boolean,
): string | null {
  return processes === 1 && !profiled ? (env.BENCH_RUNTIME_STATS ?? null) : null;
}

/** The edge on its CPUs (edgeCpus); resolves once every process answers /healthz. */
export async function startEdge(
  group: ProcessGroup,
  root: string,
  env: NodeJS.ProcessEnv,
  options: EdgeOptions | string = {},
): Promise<Started> {
  const {
    profileFile,
    processes = 1,
    nodeFlags = [],
    profileKind = 'cpu',
  } = typeof options === 'string' ? { profileFile: options } : options;
  const stats = runtimeStatsFile(env, processes, profileFile !== undefined);
  const hookFile = profileFile ? PROFILE_HOOK : stats ? RUNTIME_HOOK : null;
  const hook = hookFile ? ['--import', pathToFileURL(join(root, hookFile)).href] : [];
  // The hooks' switches are set below for this edge only, never inherited.
  const { BENCH_RUNTIME_STATS: _, BENCH_CPU_PROFILE: _c, BENCH_HEAP_PROFILE: _h, ...rest } = env;
  const edgeEnv: NodeJS.ProcessEnv = {
    ...rest,
    EDGE_PROCESSES: String(processes),
    ...(profileFile
      ? { [profileKind === 'heap' ? 'BENCH_HEAP_PROFILE' : 'BENCH_CPU_PROFILE']: profileFile }
      : {}),
    ...(stats ? { BENCH_RUNTIME_STATS: stats } : {}),
  };
  const edge = group.start(
    node(
      profileFile ? 'edge-profiled' : 'edge',
      edgeCpus(processes),
      [...hook, EDGE_MAIN],
      edgeEnv,
      undefined,
      nodeFlags,
    ),
  );
  const url = `http://127.0.0.1:${env.EDGE_PORT}`;
  await ready('edge', `${url}/healthz`);
  if (processes > 1) await everyEdgeProcess(url, processes);
  return edge;
}

/** Mock, router and worker on the load CPU, then the edge on its own; resolves when all answer. */
export async function startStack(
  group: ProcessGroup,
  root: string,
  env: NodeJS.ProcessEnv,
  apiKey: string,
  edgeNodeFlags: readonly string[] = [],
): Promise<Stack> {
  const mockUrl = `http://127.0.0.1:${env.MOCK_PROVIDER_PORT}`;
  group.start(node('mock-provider', LOAD_CPU, ['dist/libs/testing/src/mock-provider/main.js'], env));
  group.start(node('router', LOAD_CPU, ['dist/apps/router/src/main.js'], env));
  group.start(node('worker', LOAD_CPU, ['dist/apps/worker/src/main.js'], env));
  await ready('mock provider', `${mockUrl}/__mock/behaviour`);
  await ready('router', `http://127.0.0.1:${env.ROUTER_PORT}/healthz`);
  await ready('worker', `http://127.0.0.1:${env.WORKER_PORT}/healthz`);
  // Off the request path: they yield the load CPU to the mock and wrk (see LOG_PIPELINE_NICE). Set
  // once they answer: booted at niceness 19 on a machine whose other work kept 2 CPUs at load 13,
  // the router printed nothing in 120 s.
  for (const name of ['router', 'worker'])
    execFileSync('renice', ['-n', String(LOG_PIPELINE_NICE), '-p', String(group.pidOf(name))], {
      stdio: 'ignore',
    });
  const edge = await startEdge(group, root, env, { nodeFlags: edgeNodeFlags });
  return { mockUrl, edgeUrl: `http://127.0.0.1:${env.EDGE_PORT}`, apiKey, edge };
}

/**
 * The floor proxy (floor-proxy.ts) on the edge's CPU with the edge's Node flags, in front of the
 * mock; resolves once a request relayed through it answers.
 */
export async function startFloor(
  group: ProcessGroup,
  root: string,
  env: NodeJS.ProcessEnv,
  opts: { readonly port: number; readonly mockUrl: string; readonly runtimeStats: string },
): Promise<{ url: string; process: Started }> {
  const floorEnv = {
    ...env,
    FLOOR_PORT: String(opts.port),
    FLOOR_UPSTREAM: opts.mockUrl,
    BENCH_RUNTIME_STATS: opts.runtimeStats,
  };
  // The edge's runtime hook too: its heap and request times are read like the edge's.
  const hook = ['--import', pathToFileURL(join(root, RUNTIME_HOOK)).href];
  const started = group.start(
    node('floor', String(EDGE_CPU), [...hook, 'dist/bench/floor-proxy.js'], floorEnv),
  );
  const url = `http://127.0.0.1:${opts.port}`;
  await ready('floor proxy', `${url}/__mock/behaviour`);
  return { url, process: started };
}

/** The processes whose CPU time each counted run reads, by name (the edge: primary and workers). */
export function cpuGroups(
  group: ProcessGroup,
  edgePid: number,
  others: { readonly peer?: number; readonly floor?: number } = {},
): Map<string, number[]> {
  const own = (name: string): number[] => [group.pidOf(name) ?? -1].filter((pid) => pid > 0);
  return new Map([
    ['edge', processTree(edgePid)],
    ...(others.peer ? ([['peer', processTree(others.peer)]] as const) : []),
    ...(others.floor ? ([['floor', processTree(others.floor)]] as const) : []),
    ['worker', own('worker')],
    ['router', own('router')],
    ['mock', own('mock-provider')],
    // Shared services, read-only: whatever else uses them during the run is counted too.
    ['redis', pidsByCommand('redis-server')],
    ['postgres', pidsByCommand('postgres')],
  ]);
}

/** Stop order: the edge first (its log buffer drains into the queue), the upstream mock last. */
export const STOP_ORDER = ['edge', 'edge-profiled', 'floor', 'router', 'worker', 'mock-provider'];

interface EdgeHealth {
  readonly pid: number;
  readonly routes: { readonly source: string };
  readonly logs: { readonly pending: number; readonly shipped: number };
}

/** One /healthz on a connection of its own, so a cluster's primary hands it to the next worker. */
function healthOnce(edgeUrl: string): Promise<EdgeHealth> {
  return new Promise((resolve, reject) => {
    const req = request(`${edgeUrl}/healthz`, { agent: false, timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body) as EdgeHealth);
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('edge /healthz timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** /healthz of one edge process (any). */
export const edgeHealth = healthOnce;

/** /healthz of each of an edge's `processes` processes (each keeps its own log buffer), by pid. */
export async function everyEdgeProcess(edgeUrl: string, processes: number): Promise<EdgeHealth[]> {
  const seen = new Map<number, EdgeHealth>();
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (seen.size < processes) {
    if (Date.now() > deadline) throw new Error(`only ${seen.size} of ${processes} edge processes answered`);
    const h = await healthOnce(edgeUrl).catch(() => null);
    if (h && !seen.has(h.pid)) seen.set(h.pid, h);
    else await new Promise((r) => setTimeout(r, 50)); // a worker still booting
  }
  return [...seen.values()];
}

/** Routes as in production: published by the router, not the edge's config-only fallback. */
export async function waitForRouterRoutes(edgeUrl: string): Promise<void> {
  const fromRouter = async (): Promise<boolean> => (await edgeHealth(edgeUrl)).routes.source === 'router';
  if (!(await waitUntil(fromRouter, { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200 })))
    throw new Error('the edge never received a route table from the router');
}

/**
 * A token count the edge answers itself (the mock has no counting API, so the edge counts with
 * its tokenizer): it loads the tokenizer tables (o200k, about 70 MB and half a second), which
 * the edge otherwise loads on the first stream cut before its usage arrived. wrk cuts streams
 * whenever a run ends, so without this the load lands in the middle of some counted run, a
 * one-off that shows there as CPU, allocation and RSS per request. Resolves once they are loaded.
 */
export async function loadEdgeTokenizer(edgeUrl: string, apiKey: string, model: string): Promise<void> {
  const res = await fetch(`${edgeUrl}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  const body = await res.text();
  if (!res.ok || !/"input_tokens":\s*[1-9]/.test(body))
    throw new Error(`the edge's local token count failed (${res.status}): ${body.slice(0, 300)}`);
}

/** Applies the behaviour and returns what the mock reports back, for the record. */
export async function configureMock(mockUrl: string, behaviour: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${mockUrl}/__mock/behaviour`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(behaviour),
  });
  if (!res.ok)
    throw new Error(`mock refused the behaviour ${JSON.stringify(behaviour)}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
