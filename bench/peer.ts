import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tcpReachable, waitUntil } from '../scripts/start/probe.js';
import { type ProcessGroup, type Started } from './processes.js';
import { EDGE_CPU } from './settings.js';

const run = promisify(execFile);

/** Another gateway in the same run, on the same mock, CPU and load. */
export interface Peer {
  readonly label: string;
  readonly version: string;
  readonly url: string;
  /** What routes its requests to our mock (sent with every request, by wrk and the TTFT client). */
  readonly headers: Readonly<Record<string, string>>;
  readonly process: Started;
  /** Why streams are not measured through it (they failed its smoke test), or null. */
  readonly streamError: string | null;
  /** How it was installed and started, for the method text. */
  readonly notes: readonly string[];
}

export type PeerSetup =
  { readonly ok: true; readonly peer: Peer } | { readonly ok: false; readonly reason: string };

const PACKAGE = '@portkey-ai/gateway';
/**
 * Its server dependency, pinned: with the @hono/node-server npm resolves by default (1.19) every
 * Portkey 1.x stream answers 500 `TypeError: immutable` on Node 20 (Portkey-AI/gateway#1389 and
 * #1550: hono's Response keeps fetch's immutable headers, which Portkey appends to); 1.12.2 works.
 */
const HONO_NODE_SERVER = '1.12.2';
const INSTALL_TIMEOUT_MS = 300_000;
const READY_TIMEOUT_MS = 30_000;

const tail = (text: string): string => text.trim().split('\n').slice(-5).join(' | ');

/**
 * Installs Portkey's open-source gateway with npm into `dir` (a temporary directory of the run,
 * never the repository's node_modules or package.json), starts it headless on `port` pinned like
 * our edge, and checks a non-stream and a stream request through it. Any failure is returned as a
 * reason for the report, never thrown: the bench then measures without it.
 */
export async function startPortkey(
  group: ProcessGroup,
  dir: string,
  opts: { version: string; port: number; mockUrl: string; apiKey: string },
): Promise<PeerSetup> {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    private: true,
    dependencies: { [PACKAGE]: opts.version },
    overrides: { '@hono/node-server': HONO_NODE_SERVER },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  try {
    // --ignore-scripts: its postinstall runs patch-package on patches it does not ship.
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev'], {
      cwd: dir,
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    return {
      ok: false,
      reason: `npm install ${PACKAGE}@${opts.version} failed: ${tail(e.stderr || e.message)}`,
    };
  }
  const pkgDir = join(dir, 'node_modules', PACKAGE);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    version: string;
    bin: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
  const server = JSON.parse(
    readFileSync(join(dir, 'node_modules/@hono/node-server/package.json'), 'utf8'),
  ) as {
    version: string;
  };
  // Headless: without its logs web UI, as its docs run it in production.
  const started = group.start({
    name: 'portkey',
    cpu: EDGE_CPU,
    command: process.execPath,
    args: [join(pkgDir, bin), `--port=${opts.port}`, '--headless'],
  });
  const up = await waitUntil(() => tcpReachable({ host: '127.0.0.1', port: opts.port }), {
    timeoutMs: READY_TIMEOUT_MS,
    intervalMs: 100,
  });
  if (!up) return { ok: false, reason: `Portkey ${pkg.version} did not listen on ${opts.port} within 30 s` };
  const peer = {
    label: `Portkey ${pkg.version}`,
    version: pkg.version,
    url: `http://127.0.0.1:${opts.port}`,
    // Portkey routes by headers: the OpenAI provider, at our mock's address.
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${opts.mockUrl}/v1` },
    process: started,
    notes: [
      `npm install ${PACKAGE}@${opts.version} (installed ${pkg.version}) into a temporary directory, with its @hono/node-server pinned to ${server.version} (with the 1.19 npm picks by default its streams answer 500 \`TypeError: immutable\` on Node 20: Portkey-AI/gateway#1389, #1550)`,
      `started as \`node ${bin} --port=<port> --headless\``,
    ],
  };
  const nonStream = await smoke(peer.url, peer.headers, opts.apiKey, false);
  if (nonStream)
    return { ok: false, reason: `Portkey ${pkg.version} failed a chat completion: ${nonStream}` };
  return { ok: true, peer: { ...peer, streamError: await smoke(peer.url, peer.headers, opts.apiKey, true) } };
}

/** One chat completion through the peer; null when it answered as the mock does, else what went wrong. */
async function smoke(
  url: string,
  headers: Readonly<Record<string, string>>,
  apiKey: string,
  stream: boolean,
): Promise<string | null> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model: 'mock-gpt', stream, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.text();
    if (res.status !== 200) return `${stream ? 'stream' : 'non-stream'}: ${res.status} ${body.slice(0, 200)}`;
    if (stream ? !body.includes('data: [DONE]') : !body.includes('"choices"'))
      return `${stream ? 'stream' : 'non-stream'}: unexpected body ${body.slice(0, 200)}`;
    return null;
  } catch (err) {
    return `${stream ? 'stream' : 'non-stream'}: ${(err as Error).message}`;
  }
}
