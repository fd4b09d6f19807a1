import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Env, type GatewayConfig } from '#libs/config';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('./ts-register.mjs', import.meta.url));
/**
 * Compiling and loading an app from its sources takes 3 to 4 s on an idle 2-core machine (the
 * console 3.9 s); in a fresh-clone CI run, with three Jest workers and their apps on the same two
 * cores, a console printed nothing in 20 s. A hung app still fails, a minute later.
 */
const READY_TIMEOUT_MS = 60_000;
const PORT_ENV = {
  edge: 'EDGE_PORT',
  router: 'ROUTER_PORT',
  worker: 'WORKER_PORT',
  console: 'CONSOLE_PORT',
} as const;

export interface AppProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then the exit code (null if killed by a signal). */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash or an OOM kill would: nothing is flushed. Resolves once it is gone. */
  kill(): Promise<number | null>;
  /** Everything the process wrote so far, stdout (its JSON log lines) then stderr. */
  output(): string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/** The config as a file states it: a parsed config holds group limits apart, in `group_limits`. */
function configFile(config: GatewayConfig): unknown {
  const {
    group_limits: limits,
    strict_translation_groups: strict,
    no_fallback_groups: noFallbacks,
    groups,
    ...rest
  } = config;
  const asWritten = Object.entries(groups).map(([name, models]) => {
    const groupLimits = limits[name];
    const translation = strict.includes(name) ? { translation: 'strict' } : {};
    const fallbacks = noFallbacks.includes(name) ? { fallbacks: false } : {};
    const plain = !groupLimits && !strict.includes(name) && !noFallbacks.includes(name);
    return [
      name,
      plain ? models : { models, ...(groupLimits && { limits: groupLimits }), ...translation, ...fallbacks },
    ] as const;
  });
  // Each provider's credential facts are derived from its entry, not written.
  const providers = rest.providers.map(({ credential: _derived, ...written }) => written);
  return { ...rest, providers, groups: Object.fromEntries(asWritten) };
}

export interface SpawnOptions {
  /** More variables for the process (EDGE_PROCESSES, say). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How long /healthz may take to answer (default READY_TIMEOUT_MS; each process compiles the
   * sources).
   */
  readonly readyTimeoutMs?: number;
}

/**
 * Runs one app as a real OS process from its TypeScript sources (swc loader, `source` condition),
 * with the given environment and config, and resolves once its /healthz answers.
 */
export async function spawnApp(
  app: keyof typeof PORT_ENV,
  env: Env,
  config: GatewayConfig,
  options: SpawnOptions = {},
): Promise<AppProcess> {
  const dir = mkdtempSync(join(tmpdir(), `gw-${app}-`));
  const configPath = join(dir, 'gateway.json'); // JSON is YAML: the config loader reads it as is
  writeFileSync(configPath, JSON.stringify(configFile(config)));
  const port = await freePort();
  const logPath = join(dir, 'app.log');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', REGISTER, `apps/${app}/src/main.ts`],
    {
      cwd: ROOT,
      // The app's JSON log lines go to a file beside its config, kept if the app ends badly.
      stdio: ['ignore', openSync(logPath, 'a'), 'pipe'],
      env: {
        PATH: process.env.PATH,
        GATEWAY_CONFIG: configPath,
        REDIS_URL: env.redis.url,
        REDIS_CLUSTER: String(env.redis.cluster),
        REDIS_PREFIX: env.redisPrefix,
        DATABASE_URL: env.databaseUrl,
        HOST: '127.0.0.1',
        [PORT_ENV[app]]: String(port),
        ...options.env,
      },
    },
  );
  let stderr = '';
  let allStderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    allStderr += d.toString();
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  for (;;) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} process did not come up:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code === 0) rmSync(dir, { recursive: true, force: true });
      else console.error(`${app} exited with ${code}; its log: ${logPath}\n${stderr}`);
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
    output() {
      // The log file is removed once the process exited 0.
      const stdout = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
      return stdout + allStderr;
    },
  };
}
