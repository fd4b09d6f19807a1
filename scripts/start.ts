/**
 * `npm start`: migrations, then the mock provider and the four apps as child processes, their log
 * lines as one output (JSON, or short lines on a terminal), a banner once every /readyz answers,
 * a crashed app restarted alone (scripts/start/restart.ts) and an ordered shutdown on Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from '#libs/node-runtime';
import type { ExitInfo } from './start/shutdown.js';
import type { ChildSpec } from './start/supervisor.js';

// `node dist/scripts/start.js` run by hand on an older Node stops here with one line; the apps it
// spawns run on this same binary (process.execPath).
exitUnlessSupportedNode('npm start');
const { readEnv, redactUrl } = await import('#libs/config');
const { resolveLogOutput } = await import('#libs/logging');
const { bannerFields, readyBanner } = await import('./start/banner.js');
const { adminState, hostPortOf, httpOk, loopbackFor, tcpReachable, urlAuthority, waitUntil } =
  await import('./start/probe.js');
const { LogRelay } = await import('./start/relay.js');
const { LOCAL_SECRET_KEYS_FILE, secretKeysFor } = await import('./start/secret-keys.js');
const { describeExit } = await import('./start/shutdown.js');
const { Supervisor } = await import('./start/supervisor.js');

const SHUTDOWN_GRACE_MS = 10_000;
// Generous: on a busy laptop (or run from the sources, each app compiling itself) five apps starting
// at once can take most of a minute.
const READY_TIMEOUT_MS = 120_000;

interface App extends ChildSpec {
  /** What says it is ready: /readyz for the apps, a TCP accept for the mock provider. */
  readonly ready: () => Promise<boolean>;
  /** An app started earlier that must be ready before this one starts. */
  readonly after?: string;
}

/**
 * Run as built (`node dist/scripts/start.js`), the children are the built entry points. Run from
 * the TypeScript sources with a loader (`node --conditions=source --import <loader> scripts/start.ts`,
 * as the start script's end-to-end test does), they are the sources, loaded the same way.
 */
const fromSources = import.meta.url.endsWith('.ts');
const root = fileURLToPath(new URL(fromSources ? '..' : '../..', import.meta.url));
const entry = (path: string): string[] =>
  fromSources ? [...process.execArgv, `${path}.ts`] : [`dist/${path}.js`];

const env = readEnv();
const host = loopbackFor(env.host);
const mockPort = Number(process.env.MOCK_PROVIDER_PORT || 4010);
const url = (port: number): string => `http://${urlAuthority(host, port)}`;
const readyz = (port: number) => () => httpOk(`${url(port)}/readyz`);

const migrate: ChildSpec = { name: 'migrate', args: entry('libs/db/src/migrate.main'), stopOrder: 0 };
// Start order is array order; stopOrder: edge and console first (no new traffic), then the router
// and the worker (the worker drains what the edge enqueued), the upstream mock last.
const apps: App[] = [
  {
    name: 'mock-provider',
    args: entry('libs/testing/src/mock-provider/main'),
    stopOrder: 2,
    ready: () => tcpReachable({ host, port: mockPort }),
  },
  { name: 'router', args: entry('apps/router/src/main'), stopOrder: 1, ready: readyz(env.routerPort) },
  { name: 'worker', args: entry('apps/worker/src/main'), stopOrder: 1, ready: readyz(env.workerPort) },
  // After the router has published a route table: an edge started before routes on its config
  // alone for a moment, and says so in a warning a first run does not need.
  {
    name: 'edge',
    args: entry('apps/edge/src/main'),
    stopOrder: 0,
    ready: readyz(env.edgePort),
    after: 'router',
  },
  { name: 'console', args: entry('apps/console/src/main'), stopOrder: 0, ready: readyz(env.consolePort) },
];

// The format is decided here, from this process's stdout; the apps always write JSON into their
// pipes (and without colour codes in Nest's messages), and the relay renders it.
const output = resolveLogOutput(env, process.stdout);
const relay = new LogRelay({
  out: process.stdout,
  output,
  level: env.logLevel,
  appWidth: Math.max(...['start', migrate.name, ...apps.map((a) => a.name)].map((n) => n.length)),
});
let setupUrl: string | null = null;
relay.onRecord((app, record) => {
  if (app === 'console' && typeof record.setup_url === 'string') setupUrl = record.setup_url;
});
const secretKeys = secretKeysFor(process.env.GATEWAY_SECRET_KEYS, join(root, LOCAL_SECRET_KEYS_FILE));
if (secretKeys.source !== 'env')
  relay.say(
    'info',
    `provider keys stored in the console are sealed with the local key in ${LOCAL_SECRET_KEYS_FILE}` +
      ' (set GATEWAY_SECRET_KEYS in production)',
  );
const supervisor = new Supervisor({
  cwd: root,
  env: { ...process.env, LOG_FORMAT: 'json', NO_COLOR: '1', GATEWAY_SECRET_KEYS: secretKeys.keys },
  sink: relay,
});

let exiting = false;
async function shutdown(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    await supervisor.stop(SHUTDOWN_GRACE_MS);
    relay.say(code === 0 ? 'info' : 'error', code === 0 ? 'stopped' : `stopped (exit code ${code})`);
  }
  process.exit(code);
}

function fail(message: string): Promise<never> {
  relay.say('error', message);
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
  const missing = [migrate, ...apps]
    .map((s) => s.args.at(-1) ?? '')
    .filter((p) => !existsSync(`${root}/${p}`));
  if (missing.length) return void (await fail(`not built: ${missing.join(', ')}. Run \`npm run build\`.`));

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (exiting) return;
      relay.say('info', `${sig}: stopping (up to ${SHUTDOWN_GRACE_MS / 1000} s)`);
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

  // An app that exits on its own from here on is restarted alone, with backoff (the supervisor logs
  // each crash and restart): a console aborted at its heap limit must not take the edge down.
  const readiness = new Map<string, Promise<boolean>>();
  const startWhenDue = async (app: App): Promise<boolean> => {
    if (app.after !== undefined && !(await readiness.get(app.after))) return false;
    if (exiting) return false;
    supervisor.start(app);
    return waitUntil(app.ready, { timeoutMs: READY_TIMEOUT_MS, cancelled: () => exiting });
  };
  for (const app of apps) readiness.set(app.name, startWhenDue(app));
  const results = await Promise.all(
    apps.map(async (app) => ({ name: app.name, ok: await readiness.get(app.name)! })),
  );
  if (exiting) return;
  const notReady = results.filter((r) => !r.ok).map((r) => r.name);
  if (notReady.length) {
    return void (await fail(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${notReady.join(', ')}`));
  }

  // The console logs its setup link before it listens, so the line is relayed by now.
  const banner = {
    edgeUrl: url(env.edgePort),
    consoleUrl: url(env.consolePort),
    admin: await adminState(url(env.consolePort)),
    setupUrl,
  };
  relay.banner('ready', bannerFields(banner), readyBanner(banner, output.color));
}

main().catch((error: unknown) => {
  void fail(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
});
