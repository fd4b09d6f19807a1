import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { percentile } from './stats.js';

export interface TtftTarget {
  readonly origin: string;
  readonly apiKey: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface TtftStats {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface TtftResult {
  readonly requests: number;
  readonly direct: TtftStats;
  readonly gateway: TtftStats;
  /** The floor proxy (floor-proxy.ts), in results of bench versions that ran it. */
  readonly floor?: TtftStats;
  /** The peer gateway, when one was measured with streams. */
  readonly peer?: TtftStats;
}

type Side = 'direct' | 'gateway' | 'floor' | 'peer';

export const TTFT_WARMUP_REQUESTS = 30;
const DATA = Buffer.from('data:');

/**
 * Time from sending a stream request to the first `data:` byte of its body, over one keep-alive
 * connection. The whole body is read, so the connection is free for the next request.
 */
async function firstDataMs(client: Client, target: TtftTarget, body: string): Promise<number> {
  const start = performance.now();
  const res = await client.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {
      ...target.headers,
      'content-type': 'application/json',
      authorization: `Bearer ${target.apiKey}`,
    },
    body,
  });
  let first: number | null = null;
  for await (const chunk of res.body) {
    if (first === null && (chunk as Buffer).includes(DATA)) first = performance.now() - start;
  }
  if (res.statusCode !== 200 || first === null)
    throw new Error(`stream from ${target.origin} answered ${res.statusCode} without a data: line`);
  return first;
}

/**
 * Sequential stream requests (concurrency 1), each round one to every target, with the order
 * rotated every round, so slow drift in the machine hits them all alike.
 */
export async function measureTtft(
  targets: {
    readonly direct: TtftTarget;
    readonly gateway: TtftTarget;
    readonly floor?: TtftTarget;
    readonly peer?: TtftTarget;
  },
  body: string,
  requests: number,
): Promise<TtftResult> {
  const sides = (['direct', 'gateway', 'floor', 'peer'] as const).filter((s) => targets[s] !== undefined);
  const clients = new Map<Side, Client>(
    sides.map((s) => [s, new Client(targets[s]!.origin, { pipelining: 1 })]),
  );
  const samples = new Map<Side, number[]>(sides.map((s) => [s, []]));
  try {
    for (let i = 0; i < TTFT_WARMUP_REQUESTS + requests; i++) {
      const order = sides.map((_, k) => sides[(k + i) % sides.length]!);
      for (const side of order) {
        const ms = await firstDataMs(clients.get(side)!, targets[side]!, body);
        if (i >= TTFT_WARMUP_REQUESTS) samples.get(side)!.push(ms);
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close()));
  }
  const stats = (s: number[]): TtftStats => ({ p50Ms: percentile(s, 50), p99Ms: percentile(s, 99) });
  const [floor, peer] = [samples.get('floor'), samples.get('peer')];
  return {
    requests,
    direct: stats(samples.get('direct')!),
    gateway: stats(samples.get('gateway')!),
    ...(floor ? { floor: stats(floor) } : {}),
    ...(peer ? { peer: stats(peer) } : {}),
  };
}
