/**
 * `npm start`: migrations, then the mock provider and the four apps as child processes with
 * prefixed output, a banner once every /healthz answers, and an ordered shutdown on Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from '#libs/node-runtime';
import type { ExitInfo } from './start/shutdown.js';
import type { ChildSpec } from './start/supervisor.js';

// `node dist/scripts/start.js` run by hand on an older Node stops here with one line; the apps it
// spawns run on this same binary (process.execPath).
exitUnlessSupportedNode('npm start');
const { readEnv, redactUrl } = await import('#libs/config');
const { readyBanner } = await import('./start/banner.js');
const { hostPortOf, httpOk, loopbackFor, tcpReachable, urlAuthority, waitUntil } =
  await import('./start/probe.js');
const { describeExit } = await import('./start/shutdown.js');
const { Supervisor } = await import('./start/supervisor.js');

const SHUTDOWN_GRACE_MS = 10_000;
const READY_TIMEOUT_MS = 60_000;

interface App extends ChildSpec {
  /** What says it is ready: /healthz for the apps, a TCP accept for the mock provider. */
  readonly ready: () => Promise<boolean>;
}

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/scripts/start.js -> repo root
const env = readEnv();
const host = loopbackFor(env.host);
const mockPort = Number(process.env.MOCK_PROVIDER_PORT || 4010);
const url = (port: number): string => `http://${urlAuthority(host, port)}`;
const healthz = (port: number) => () => httpOk(`${url(port)}/healthz`);

const migrate: ChildSpec = { name: 'migrate', args: ['dist/libs/db/src/migrate.main.js'], stopOrder: 0 };
// Start order is array order; stopOrder: edge and console first (no new traffic), then the router
// and the worker (the worker drains what the edge enqueued), the upstream mock last.
const apps: App[] = [
  {
    name: 'mock-provider',
    args: ['dist/libs/testing/src/mock-provider/main.js'],
    stopOrder: 2,
    ready: () => tcpReachable({ host, port: mockPort }),
  },
  {
    name: 'router',
    args: ['dist/apps/router/src/main.js'],
    stopOrder: 1,
    ready: healthz(env.routerPort),
  },
  {
    name: 'worker',
    args: ['dist/apps/worker/src/main.js'],
    stopOrder: 1,
    ready: healthz(env.workerPort),
  },
  { name: 'edge', args: ['dist/apps/edge/src/main.js'], stopOrder: 0, ready: healthz(env.edgePort) },
  {
    name: 'console',
    args: ['dist/apps/console/src/main.js'],
    stopOrder: 0,
    ready: healthz(env.consolePort),
  },
];

const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const supervisor = new Supervisor({
  cwd: root,
  // Apps that color their own logs (Nest) honour NO_COLOR: keep pipes and files free of escapes.
  env: color ? process.env : { ...process.env, NO_COLOR: '1' },
  stdout: process.stdout,
  stderr: process.stderr,
  color,
  width: Math.max(...[migrate, ...apps].map((s) => s.name.length)),
});

let exiting = false;
async function shutdown(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    await supervisor.stop(SHUTDOWN_GRACE_MS);
    supervisor.log(code === 0 ? 'stopped' : `stopped (exit code ${code})`);
  }
  process.exit(code);
}

function fail(message: string): Promise<never> {
  supervisor.log(message);
  return shutdown(1);
}

async function explainMigrationFailure(exit: ExitInfo): Promise<never> {
  const db = hostPortOf(env.databaseUrl, 5432);
  const reachable = await tcpReachable(db);
  const where = `Postgres at ${redactUrl(env.databaseUrl)}`;
  return fail(
    `migrations ${describeExit(exit)}. ` +
      (reachable
        ? `${where} is reachable, so see the migration error above.`
        : `${where} is not reachable: start PostgreSQL (or \`docker compose up -d postgres\`) or set DATABASE_URL.`),
  );
}

async function main(): Promise<void> {
  const missing = [migrate, ...apps].map((s) => s.args[0] ?? '').filter((p) => !existsSync(`${root}/${p}`));
  if (missing.length) return void (await fail(`not built: ${missing.join(', ')}. Run \`npm run build\`.`));

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (exiting) return;
      supervisor.log(`${sig}: stopping (up to ${SHUTDOWN_GRACE_MS / 1000} s)`);
      void shutdown(0);
    });
  }
  // If this process dies some other way, take the children with it.
  process.on('exit', () => supervisor.killAllNow());

  const migrated = await supervisor.run(migrate);
  if (exiting) return;
  if (migrated.code !== 0) return void (await explainMigrationFailure(migrated));

  // A Cluster answers on any seed: the first one tells whether Redis is there at all.
  const redis = hostPortOf(env.redis.url.split(',')[0]!.trim(), 6379);
  if (!(await tcpReachable(redis))) {
    return void (await fail(
      `Redis at ${redactUrl(env.redis.url)} is not reachable: start redis-server or set REDIS_URL.`,
    ));
  }

  supervisor.onUnexpectedExit((name, exit) => {
    if (exiting) return;
    supervisor.log(`${name} ${describeExit(exit)} unexpectedly; stopping the others`);
    void shutdown(1);
  });
  for (const app of apps) supervisor.start(app);

  const results = await Promise.all(
    apps.map(async (app) => ({
      name: app.name,
      ok: await waitUntil(app.ready, { timeoutMs: READY_TIMEOUT_MS, cancelled: () => exiting }),
    })),
  );
  if (exiting) return;
  const notReady = results.filter((r) => !r.ok).map((r) => r.name);
  if (notReady.length) {
    return void (await fail(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${notReady.join(', ')}`));
  }

  process.stdout.write(
    readyBanner({
      edgeUrl: url(env.edgePort),
      consoleUrl: url(env.consolePort),
      color,
    }),
  );
}

main().catch((error: unknown) => {
  void fail(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
});
