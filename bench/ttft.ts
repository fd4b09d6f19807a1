import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { percentile } from './stats.js';

export interface TtftTarget {
  readonly origin: string;
  readonly apiKey: string;
}

export interface TtftStats {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface TtftResult {
  readonly requests: number;
  readonly direct: TtftStats;
  readonly gateway: TtftStats;
}

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
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
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
 * Sequential stream requests (concurrency 1), alternating direct and gateway and swapping which
 * goes first every round, so slow drift in the machine hits both sides alike.
 */
export async function measureTtft(
  direct: TtftTarget,
  gateway: TtftTarget,
  body: string,
  requests: number,
): Promise<TtftResult> {
  const clients = [direct, gateway].map((t) => new Client(t.origin, { pipelining: 1 }));
  const [directClient, gatewayClient] = clients as [Client, Client];
  const samples = { direct: [] as number[], gateway: [] as number[] };
  try {
    for (let i = 0; i < TTFT_WARMUP_REQUESTS + requests; i++) {
      const order: ('direct' | 'gateway')[] = i % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
      for (const side of order) {
        const ms =
          side === 'direct'
            ? await firstDataMs(directClient, direct, body)
            : await firstDataMs(gatewayClient, gateway, body);
        if (i >= TTFT_WARMUP_REQUESTS) samples[side].push(ms);
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  const stats = (s: number[]): TtftStats => ({ p50Ms: percentile(s, 50), p99Ms: percentile(s, 99) });
  return { requests, direct: stats(samples.direct), gateway: stats(samples.gateway) };
}
