import { databaseNameOf } from '#libs/db';

/**
 * What one bench run does: tunables from BENCH_* env vars (read once, here), the request body sent
 * to both targets, and the mock provider's behaviour.
 */
export interface BenchSettings {
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** Interleaved direct/gateway pairs per cell; the report takes medians over them. */
  readonly pairs: number;
  readonly concurrencies: readonly number[];
  /** Sequential stream requests per target for the time-to-first-token client. */
  readonly ttftRequests: number;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  /** Keep the bench database and Redis keys after the run (to inspect the logs the worker wrote). */
  readonly keepData: boolean;
  /** Skip the profiling run. */
  readonly skipProfile: boolean;
  /** Edge process counts of the scaling run (non-stream, SCALING_CONCURRENCIES); [] or [1] skips it. */
  readonly edgeProcesses: readonly number[];
  /** Another gateway measured beside ours in the same run, or none. */
  readonly peer: PeerName | null;
  /** The npm version (or dist-tag) of the peer to install. */
  readonly peerVersion: string;
  /**
   * Node/V8 flags for the edge's command line after the production ones (APP_NODE_FLAGS), so a
   * later one wins: a GC variant such as `--max-semi-space-size=16` or `--single-threaded-gc`
   * (which Node refuses in NODE_OPTIONS). Empty: the edge runs as production does.
   */
  readonly edgeNodeFlags: readonly string[];
  /**
   * Processes stopped (SIGSTOP) for each counted gateway run and resumed after it (BENCH_FREEZE):
   * a diagnostic variant that takes the log pipeline's work off the machine during the run, to
   * see what of the tail it is. Empty: nothing is stopped.
   */
  readonly freeze: readonly FreezableProcess[];
  /** New accounts of the cold-account burst (bench/cold-burst.ts); 0 skips it. */
  readonly coldAccounts: number;
  /** `--only cold-burst` (or BENCH_ONLY): set the stack up, run that scenario alone, print it. */
  readonly only: 'cold-burst' | null;
}

export const FREEZABLE = ['worker', 'postgres', 'router'] as const;
export type FreezableProcess = (typeof FREEZABLE)[number];

export const PEERS = ['portkey'] as const;
export type PeerName = (typeof PEERS)[number];

/**
 * Portkey's open-source gateway, pinned so runs compare (BENCH_PEER_VERSION=latest takes the newest);
 * the version installed is recorded in the results either way.
 */
export const DEFAULT_PORTKEY_VERSION = '1.15.2';

/** The scaling run's load: enough connections to keep every edge process busy. */
export const SCALING_CONCURRENCIES = [32, 64] as const;

/** CPU the edge runs on alone; everything the bench starts besides the edge shares the other one. */
export const EDGE_CPU = 0;
export const LOAD_CPU = 1;

export const MODEL = 'mock-gpt';
export const PROMPT = 'Hello, how are you today?';

/** The same bytes go to the mock directly and through the gateway. */
export function chatBody(stream: boolean): string {
  const body: Record<string, unknown> = { model: MODEL, messages: [{ role: 'user', content: PROMPT }] };
  if (stream) body.stream = true;
  return JSON.stringify(body);
}

/**
 * The mock's behaviour for the whole run: non-stream answers at once, streams wait 5 ms before one
 * burst of 8 content chunks. The mock keeps no request log, so it does the least work it can.
 */
export const MOCK_BEHAVIOUR = Object.freeze({
  latencyMs: 0,
  ttftMs: 5,
  chunkCount: 8,
  chunkIntervalMs: 0,
  failureRate: 0,
  requestLogSize: 0,
});

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function list(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error(`${name} must be a comma-separated list of positive integers, got "${raw}"`);
  return values;
}

/** Only names with "bench" in them: teardown drops this database and these keys. */
function requireBenchName(value: string, what: string): void {
  if (!value.includes('bench'))
    throw new Error(`${what} must contain "bench" (the bench drops it): "${value}"`);
}

/** `--name value` or `--name=value` from the command line (`npm run bench -- --peer portkey`). */
function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = argv[i]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1];
  // A flag given without a value would otherwise mean its default, or take the next flag as one.
  if (value === undefined || value === '' || value.startsWith('--'))
    throw new Error(`--${name} needs a value`);
  return value;
}

function peerOf(raw: string): PeerName | null {
  if (raw === 'none') return null;
  if (!(PEERS as readonly string[]).includes(raw))
    throw new Error(`--peer (BENCH_PEER) must be ${PEERS.join(', ')} or none, got "${raw}"`);
  return raw as PeerName;
}

/**
 * BENCH_EDGE_NODE_OPTIONS: whitespace-separated `--flag` or `--flag=value` words. Anything else
 * (a value on its own, a script path) would change what the edge runs, not how: refused.
 */
function nodeFlags(raw: string | undefined): string[] {
  const words = (raw ?? '').split(/\s+/).filter((w) => w !== '');
  const bad = words.find((w) => !/^--[a-z0-9][a-z0-9_-]*(=\S+)?$/i.test(w));
  if (bad !== undefined)
    throw new Error(
      `BENCH_EDGE_NODE_OPTIONS must be Node flags like --max-semi-space-size=16, each as one word: "${bad}"`,
    );
  return words;
}

/** Flags win over env vars; by default the run measures 1 and 2 edge processes and Portkey. */
export function readSettings(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv.slice(2),
): BenchSettings {
  const databaseUrl = env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/gateway_bench';
  const prefix = env.BENCH_REDIS_PREFIX || 'bench';
  if (!/^[a-z0-9_-]+$/.test(prefix))
    throw new Error(`BENCH_REDIS_PREFIX must match [a-z0-9_-]+: "${prefix}"`);
  requireBenchName(prefix, 'BENCH_REDIS_PREFIX');
  requireBenchName(databaseNameOf(databaseUrl), 'the database named in BENCH_DATABASE_URL');
  return Object.freeze({
    warmupSeconds: positive(env, 'BENCH_WARMUP_S', 3),
    durationSeconds: positive(env, 'BENCH_DURATION_S', 8),
    pairs: Math.round(positive(env, 'BENCH_PAIRS', 3)),
    concurrencies: list(env, 'BENCH_CONCURRENCY', [1, 32, 64]),
    ttftRequests: Math.round(positive(env, 'BENCH_TTFT_REQUESTS', 300)),
    databaseUrl,
    redisUrl: env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
    redisPrefix: prefix,
    keepData: env.BENCH_KEEP_DATA === '1',
    skipProfile: env.BENCH_SKIP_PROFILE === '1',
    edgeProcesses: list(
      { BENCH_EDGE_PROCESSES: flag(argv, 'processes') ?? env.BENCH_EDGE_PROCESSES },
      'BENCH_EDGE_PROCESSES',
      [1, 2],
    ),
    peer: peerOf(flag(argv, 'peer') ?? (env.BENCH_PEER || 'portkey')),
    peerVersion: env.BENCH_PEER_VERSION || DEFAULT_PORTKEY_VERSION,
    edgeNodeFlags: Object.freeze(nodeFlags(env.BENCH_EDGE_NODE_OPTIONS)),
    freeze: Object.freeze(freezeList(env.BENCH_FREEZE)),
    coldAccounts: Math.round(nonNegative(env, 'BENCH_COLD_ACCOUNTS', 1000)),
    only: onlyOf(flag(argv, 'only') ?? env.BENCH_ONLY),
  });
}

function nonNegative(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

function onlyOf(raw: string | undefined): 'cold-burst' | null {
  if (raw === undefined || raw === '') return null;
  if (raw !== 'cold-burst') throw new Error(`--only (BENCH_ONLY) must be cold-burst, got "${raw}"`);
  return raw;
}

/** BENCH_FREEZE: comma-separated names of FREEZABLE, each once. */
function freezeList(raw: string | undefined): FreezableProcess[] {
  const names = (raw ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = names.find((n) => !(FREEZABLE as readonly string[]).includes(n));
  if (bad !== undefined)
    throw new Error(`BENCH_FREEZE names processes among ${FREEZABLE.join(', ')}, got "${bad}"`);
  return [...new Set(names)] as FreezableProcess[];
}
