import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { maintenanceUrlOf } from '#libs/db';
import { TEST_DATABASE_SERVER_URL } from '../support/db.js';
import { freePort } from '../support/private-servers.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/redis.js';
import { until } from '../support/wait.js';

/**
 * `npm start` as a developer meets it: the real start script (from the sources, with the loader the
 * tests use, so no build is needed) starting migrate, the mock provider and the four apps on a
 * database and key prefix of its own, first under a pipe, then under a terminal.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('../support/ts-register.mjs', import.meta.url));
/** Five apps compiling their sources at once on a busy machine: most of a minute, sometimes more. */
const BOOT_MS = 200_000;
const NEST_CHATTER = ['NestFactory', 'NestApplication', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer'];
const ANSI = /\x1b\[[0-9;]*m/g; // eslint-disable-line no-control-regex -- stripping colour codes

const databases: string[] = [];
const prefixes: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  const client = new pg.Client({ connectionString: maintenanceUrlOf(TEST_DATABASE_SERVER_URL) });
  await client.connect();
  try {
    for (const name of databases) await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
  for (const prefix of prefixes) await dropRedisPrefix(prefix);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Stack {
  readonly env: Record<string, string>;
  readonly edgeUrl: string;
  readonly consoleUrl: string;
}

/** A fresh database (not created yet: the start script's migrate creates it), prefix, ports, config. */
async function freshStack(): Promise<Stack> {
  const database = `gwtest_start_${randomBytes(5).toString('hex')}`;
  const databaseUrl = new URL(TEST_DATABASE_SERVER_URL);
  databaseUrl.pathname = `/${database}`;
  databases.push(database);
  const prefix = uniqueRedisPrefix('start');
  prefixes.push(prefix);
  const dir = mkdtempSync(join(tmpdir(), 'gw-start-'));
  dirs.push(dir);
  const [mock, edge, console, router, worker] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
  const config = readFileSync(join(ROOT, 'config/gateway.yaml'), 'utf8').replaceAll(
    '127.0.0.1:4010',
    `127.0.0.1:${mock}`,
  );
  writeFileSync(join(dir, 'gateway.yaml'), config);
  return {
    // Nothing about logging (LOG_FORMAT, LOG_LEVEL, NO_COLOR, FORCE_COLOR): the defaults are under test.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      GATEWAY_CONFIG: join(dir, 'gateway.yaml'),
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      HOST: '127.0.0.1',
      MOCK_PROVIDER_PORT: String(mock),
      EDGE_PORT: String(edge),
      CONSOLE_PORT: String(console),
      ROUTER_PORT: String(router),
      WORKER_PORT: String(worker),
    },
    edgeUrl: `http://127.0.0.1:${edge}`,
    consoleUrl: `http://127.0.0.1:${console}`,
  };
}

interface Run {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function collect(child: ChildProcess): Run {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((ok) => child.once('close', (code) => ok(code)));
  return { child, output: () => out, exited };
}

const START = ['--conditions=source', '--import', REGISTER, 'scripts/start.ts'];

/** Waits for `done` in the output, failing at once (with the output) if the script ends first. */
async function waitFor(run: Run, done: (output: string) => boolean): Promise<void> {
  let ended = false;
  void run.exited.then(() => (ended = true));
  await until(() => done(run.output()) || ended, BOOT_MS, 'the ready banner');
  if (!done(run.output())) throw new Error(`npm start ended before its banner:\n${run.output()}`);
}

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
const hasScript = ((): boolean => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('npm start', () => {
  it(
    'under a pipe: JSON lines only, no route mappings, and the ready record with the setup link last',
    async () => {
      const stack = await freshStack();
      const run = collect(
        spawn(process.execPath, START, { cwd: ROOT, env: stack.env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      await waitFor(run, (out) => out.includes('"msg":"ready"'));
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);

      const lines = run.output().trimEnd().split('\n');
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.filter((r) => NEST_CHATTER.includes(String(r.context)))).toEqual([]);
      expect(records.filter((r) => /^Mapped \{/.test(String(r.msg)))).toEqual([]);
      expect(new Set(records.map((r) => r.app))).toEqual(
        new Set(['migrate', 'mock-provider', 'router', 'worker', 'edge', 'console', 'start']),
      );

      const ready = records.findIndex((r) => r.app === 'start' && r.msg === 'ready');
      const consoleSetup = records.find((r) => r.app === 'console' && typeof r.setup_url === 'string');
      expect(records[ready]).toMatchObject({
        level: 'info',
        openai_base_url: `${stack.edgeUrl}/v1`,
        anthropic_base_url: stack.edgeUrl,
        console_url: stack.consoleUrl,
        setup_url: consoleSetup?.setup_url,
        api_keys_url: `${stack.consoleUrl}/keys`,
        key_create: 'npm run key:create -- --email you@example.com --group default',
      });
      expect(String(consoleSetup?.setup_url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/setup\?token=[\w-]{43}$/);
      // Last of the start-up: what follows is the Ctrl-C's shutdown.
      expect(records[ready + 1]).toMatchObject({ app: 'start', msg: 'SIGINT: stopping (up to 10 s)' });
    },
    BOOT_MS + 30_000,
  );

  it(
    'a console killed with SIGKILL comes back alone while the edge keeps serving; Ctrl-C still stops all in order',
    async () => {
      const stack = await freshStack();
      const run = collect(
        spawn(process.execPath, START, { cwd: ROOT, env: stack.env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      await waitFor(run, (out) => out.includes('"msg":"ready"'));
      const records = (): Record<string, unknown>[] =>
        run
          .output()
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const pidsOf = (app: string): Set<unknown> =>
        new Set(
          records()
            .filter((r) => r.app === app)
            .map((r) => r.pid),
        );

      const created = execFileSync(
        process.execPath,
        [
          '--conditions=source',
          '--import',
          REGISTER,
          'scripts/key-create.ts',
          '--email',
          'a@example.com',
          '--group',
          'default',
        ],
        { cwd: ROOT, env: stack.env, encoding: 'utf8' },
      );
      const key = created.split('\n').find((l) => l.startsWith('sk-'))!;
      const chat = async (): Promise<number> => {
        const res = await fetch(`${stack.edgeUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }),
        });
        await res.body?.cancel();
        return res.status;
      };
      const consoleUp = async (): Promise<boolean> => {
        try {
          return (await fetch(`${stack.consoleUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      };
      expect(await chat()).toBe(200);

      const [consolePid] = [...pidsOf('console')] as number[];
      const edgePids = pidsOf('edge');
      expect(edgePids.size).toBe(1);
      process.kill(consolePid!, 'SIGKILL');
      // While the console is gone (its restart waits 1 s, then it loads for seconds), the edge answers.
      const during: number[] = [];
      let consoleWasDown = false;
      while (!run.output().includes('"msg":"console restarted')) {
        during.push(await chat());
        consoleWasDown ||= !(await consoleUp());
      }
      expect(consoleWasDown).toBe(true);
      expect(during.length).toBeGreaterThan(0);
      expect(new Set(during)).toEqual(new Set([200]));
      expect(records().find((r) => r.app === 'start' && r.level === 'error')).toMatchObject({
        msg: expect.stringMatching(/^console was killed by SIGKILL after [\d.]+ s; restarting it in 1\.0 s/),
        child: 'console',
        exit_code: null,
        signal: 'SIGKILL',
        restart: 1,
      });
      const deadline = Date.now() + BOOT_MS;
      while (!(await consoleUp()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await consoleUp()).toBe(true);
      expect(pidsOf('console').size).toBe(2);
      expect(pidsOf('edge')).toEqual(edgePids);
      expect(await chat()).toBe(200);

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      const stops = records()
        .filter((r) => r.app === 'start' && String(r.msg).startsWith('stopping '))
        .map((r) => r.msg);
      expect(stops).toEqual(['stopping edge, console', 'stopping router, worker', 'stopping mock-provider']);
    },
    2 * BOOT_MS + 30_000,
  );

  (hasScript ? it : it.skip)(
    'under a terminal: short coloured lines, and the banner with the setup link ends by line 25',
    async () => {
      const stack = await freshStack();
      // `script` gives the start script a pseudo-terminal as stdout, as a developer's shell does.
      const command = `exec ${[process.execPath, ...START].map(quote).join(' ')}`;
      const run = collect(
        spawn('script', ['-qfec', command, '/dev/null'], {
          cwd: ROOT,
          env: { ...stack.env, TERM: 'xterm' },
          stdio: ['pipe', 'pipe', 'pipe'],
        }),
      );
      const bannerEnd = '"First call, step by step"';
      await waitFor(run, (out) => out.includes(bannerEnd));
      run.child.stdin?.write('\x03'); // Ctrl-C, which the terminal turns into SIGINT
      expect(await run.exited).toBe(0);
      run.child.stdin?.end();

      const raw = run.output();
      expect(raw).toContain('\x1b[');
      const lines = raw.replace(ANSI, '').split(/\r?\n/);
      const title = lines.findIndex((l) => l.startsWith('The gateway is ready.'));
      const end = lines.findIndex((l) => l.includes(bannerEnd));
      const logLines = lines.slice(0, title - 1); // the banner opens with an empty line
      const banner = lines.slice(title - 1, end + 1);

      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(lines.filter((l) => /Mapped \{|RoutesResolver|InstanceLoader/.test(l))).toEqual([]);
      for (const line of logLines) expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO |WARN ) [\w-]+ +\S/);
      expect(end + 1).toBeLessThanOrEqual(25);
      expect(banner.length).toBeLessThanOrEqual(10);
      expect(Math.max(...banner.map((l) => l.length))).toBeLessThanOrEqual(100);

      const setup = logLines.map((l) => /setup_url=(\S+)/.exec(l)?.[1]).find(Boolean);
      expect(setup).toMatch(new RegExp(`^${stack.consoleUrl}/setup\\?token=[\\w-]{43}$`));
      expect(banner).toContain(`  First admin     ${setup}`);
      expect(banner).toContain(`  OpenAI SDKs     ${stack.edgeUrl}/v1`);
      expect(banner).toContain(`  Console         ${stack.consoleUrl}`);
      expect(lines[end + 1]).toMatch(/^(\^C)?\d\d:\d\d:\d\d INFO {2}start +SIGINT: stopping/); // the terminal echoes ^C
    },
    BOOT_MS + 30_000,
  );
});
