import { LOAD_CPU } from './settings.js';
import { type ProcessGroup } from './processes.js';

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Socket errors, timeouts and non-2xx answers together. */
  readonly errors: number;
}

export interface WrkRun {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly bodyFile: string;
  readonly apiKey: string;
  /** More request headers (a peer gateway's routing headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The wrk script, relative to the repository root (the bench's working directory). */
const SCRIPT = 'bench/chat.lua';

/** One closed-loop wrk run (one thread, N connections), pinned to the load CPU. */
export async function runWrk(group: ProcessGroup, run: WrkRun): Promise<WrkResult> {
  const out = await group.run({
    name: 'wrk',
    cpu: LOAD_CPU,
    command: 'wrk',
    args: [
      '-t1',
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      SCRIPT,
      run.url,
      '--',
      run.bodyFile,
    ],
    env: {
      ...process.env,
      BENCH_AUTHORIZATION: `Bearer ${run.apiKey}`,
      BENCH_HEADERS: Object.entries(run.headers ?? {})
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n'),
    },
  });
  return parseWrkResult(out);
}

/** Reads the `BENCH_RESULT k=v ...` line that chat.lua's done() prints. */
export function parseWrkResult(stdout: string): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  if (!line) throw new Error(`wrk printed no BENCH_RESULT line:\n${stdout}`);
  const v = new Map<string, number>();
  for (const pair of line.slice('BENCH_RESULT '.length).trim().split(' ')) {
    const [key, value] = pair.split('=');
    if (key) v.set(key, Number(value));
  }
  const get = (key: string): number => {
    const n = v.get(key);
    if (n === undefined || !Number.isFinite(n)) throw new Error(`wrk result has no ${key}: ${line}`);
    return n;
  };
  const seconds = get('duration_us') / 1e6;
  if (seconds <= 0) throw new Error(`wrk ran for no time, so it has no rate: ${line}`);
  const errorKeys = ['connect_errors', 'read_errors', 'write_errors', 'status_errors', 'timeouts'];
  return {
    requests: get('requests'),
    seconds,
    rps: get('requests') / seconds,
    p50Ms: get('p50_us') / 1000,
    p99Ms: get('p99_us') / 1000,
    errors: errorKeys.reduce((sum, key) => sum + get(key), 0),
  };
}
