import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

/**
 * Throwaway Postgres and Redis servers for fault tests: each test stops, kills and restarts its own
 * servers, never the shared ones on 5432/6379 that every other test and helper is using.
 */

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const isRoot = process.getuid?.() === 0;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/** initdb refuses to run as root: as root, Postgres commands run as the `postgres` OS user. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, bin);
  return isRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

async function pg(bin: string, args: string[]): Promise<void> {
  const [command, argv] = pgCommand(bin, args);
  await run(command, argv, { timeout: 60_000 });
}

export interface PrivatePostgres {
  readonly port: number;
  /** URL of a database on this server (user postgres, trust auth). */
  url(database: string): string;
  /** Fast shutdown (`pg_ctl stop -m fast`): clients are disconnected, new connections refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/** A fresh cluster in a temp dir on a free port, fsync off (a test's data need not survive a crash). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-pg-'));
  const data = join(dir, 'data');
  if (isRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const server: PrivatePostgres = {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
      running = true;
    },
    async stop() {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** SIGKILL: the server dies as in a crash (nothing saved). */
  kill(): Promise<void>;
  /** SIGTERM: a clean shutdown (with AOF on, the log is fsynced first). */
  stop(): Promise<void>;
  /** Starts the server again on the same port (and data dir), resolving once it answers PING. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** `appendonly yes` + `appendfsync everysec`: the production setting. Default: no persistence. */
  readonly aof?: boolean;
}

async function answersPing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    const ok = await client
      .connect()
      .then(() => client.ping())
      .then(
        () => true,
        () => false,
      );
    client.disconnect();
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis at ${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A redis-server child process on a free port; by default `--save "" --appendonly no`. */
export async function startPrivateRedis(opts: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const persistence = opts.aof
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
    : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, ...persistence];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    if (!child) return;
    child.kill(sig);
    await exited;
    child = null;
  };
  const server: PrivateRedis = {
    port,
    url,
    async start() {
      const proc = spawn('redis-server', args, { stdio: 'ignore' });
      child = proc;
      exited = new Promise((ok) => proc.once('exit', () => ok()));
      await answersPing(url, 10_000);
    },
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
    async destroy() {
      await signal('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export interface PrivateRedisCluster {
  /** The seed list for `REDIS_URL` with `REDIS_CLUSTER=true`: every primary. */
  readonly url: string;
  readonly ports: readonly number[];
  destroy(): Promise<void>;
}

/** A free port whose cluster bus port (+10000) is free too. */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 > 65_535) continue;
    const bus = createServer();
    const free = await new Promise<boolean>((ok) => {
      bus.once('error', () => ok(false));
      bus.listen(port + 10_000, '127.0.0.1', () => ok(true));
    });
    if (free) await new Promise((ok) => bus.close(ok));
    if (free) return port;
  }
}

/**
 * A Redis Cluster of `size` primaries (no replicas) in a temp dir, slots spread by
 * `redis-cli --cluster create`; resolves once every node reports `cluster_state:ok`.
 */
export async function startPrivateRedisCluster(size = 3): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < size; i++) ports.push(await freeClusterPort());
  const children = ports.map((port) =>
    spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir],
      ],
      { stdio: 'ignore' },
    ),
  );
  const exits = children.map((c) => new Promise<void>((ok) => c.once('exit', () => ok())));
  const destroy = async (): Promise<void> => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all(exits);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(ports.map((p) => answersPing(`redis://127.0.0.1:${p}`, 10_000)));
    const nodes = ports.map((p) => `127.0.0.1:${p}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      for (;;) {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`redis cluster node ${port}: ${stdout.split('\n')[0]}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  return { url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','), ports, destroy };
}
