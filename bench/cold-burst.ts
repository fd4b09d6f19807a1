import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { generateApiKey, hashApiKey } from '#libs/auth';
import { createDb, findOrCreateUserByEmail, insertApiKey } from '#libs/db';
import { clockTicksPerSecond, cpuDelta, cpuSnapshot } from './proc-stats.js';
import { chatBody } from './settings.js';
import { percentile } from './stats.js';

/**
 * The cold-account burst (issue 40): `accounts` users, each with a key and a grant, created in
 * Postgres only (nothing of them in Redis or the edge's memory), send their first request all at
 * once; then the same requests again, warm. The scale probe measured 450 requests a second cold
 * against 2,265 warm at 1,000 accounts. Each account sends one request per phase, so the cold
 * phase pays every key resolution and every account's balance load.
 */
export interface ColdBurstPhase {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers other than 200. */
  readonly failed: number;
  /**
   * CPU seconds each process group used during the phase (the edge, Postgres, Redis, the worker,
   * ...): what a cold phase costs more than a warm one, and where.
   */
  readonly cpuSeconds?: Readonly<Record<string, number>>;
}

export interface ColdBurstResult {
  readonly accounts: number;
  readonly cold: ColdBurstPhase;
  readonly warm: ColdBurstPhase;
  readonly lone?: LoneColdResult;
}

/** Creates the accounts (50 at a time): their raw keys. */
async function createAccounts(databaseUrl: string, accounts: number, grantNanos: bigint): Promise<string[]> {
  const db = createDb(databaseUrl, { poolSize: 8, applicationName: 'bench-cold-burst' });
  const run = randomBytes(3).toString('hex');
  const raws = Array.from({ length: accounts }, () => generateApiKey());
  try {
    for (let i = 0; i < accounts; i += 50) {
      await Promise.all(
        raws.slice(i, i + 50).map(async (raw, j) => {
          const email = `cold-${run}-${i + j}@bench.invalid`;
          const { user } = await findOrCreateUserByEmail(db, email, grantNanos);
          await insertApiKey(db, {
            user_id: user.id,
            name: 'cold burst',
            key_hash: hashApiKey(raw),
            display_prefix: `${raw.slice(0, 7)}...${raw.slice(-4)}`,
            group_name: 'default',
          });
        }),
      );
    }
  } finally {
    await db.destroy();
  }
  return raws;
}

/** Every key's request at once, over enough connections that none waits for a socket. */
async function burst(
  edgeUrl: string,
  raws: readonly string[],
  agent: Agent,
  cpuGroups?: () => ReadonlyMap<string, readonly number[]>,
): Promise<ColdBurstPhase> {
  const body = chatBody(false);
  const groups = cpuGroups?.();
  const cpuBefore = groups && cpuSnapshot(groups);
  const ticksPerSecond = groups && clockTicksPerSecond();
  const started = performance.now();
  const results = await Promise.all(
    raws.map(async (raw) => {
      const t = performance.now();
      const res = await request(`${edgeUrl}/v1/chat/completions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
        body,
      }).catch(() => null);
      await res?.body.dump();
      return { ms: performance.now() - t, ok: res?.statusCode === 200 };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds =
    cpuGroups && cpuBefore && ticksPerSecond
      ? Object.fromEntries(
          // Read again: Postgres backends the phase opened count from their start.
          [...cpuDelta(cpuBefore, cpuSnapshot(cpuGroups()))].map(([name, ticks]) => [
            name,
            +(ticks / ticksPerSecond).toFixed(2),
          ]),
        )
      : undefined;
  const latencies = results.map((r) => r.ms);
  return {
    rps: raws.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failed: results.filter((r) => !r.ok).length,
    ...(cpuSeconds ? { cpuSeconds } : {}),
  };
}

/** `count` requests at once to the edge's health route: the agent then holds `count` open sockets. */
async function openSockets(edgeUrl: string, count: number, agent: Agent): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async () => {
      const res = await request(`${edgeUrl}/healthz`, { dispatcher: agent }).catch(() => null);
      await res?.body.dump();
    }),
  );
}

/** The stack's own settling after the bench's warm-up and the accounts' creation. */
const QUIET_MS = 2_000;

/**
 * Lone cold keys (issue 40: a cold key's first request at most twice a warm one): each account's
 * first request alone, then its second, one account after the other on one connection.
 */
export interface LoneColdResult {
  readonly accounts: number;
  readonly coldP50Ms: number;
  readonly coldP99Ms: number;
  readonly warmP50Ms: number;
  readonly warmP99Ms: number;
  readonly failed: number;
}

async function loneKeys(edgeUrl: string, raws: readonly string[]): Promise<LoneColdResult> {
  const agent = new Agent({ connections: 1, pipelining: 1 });
  const body = chatBody(false);
  const send = async (raw: string): Promise<{ ms: number; ok: boolean }> => {
    const t = performance.now();
    const res = await request(`${edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
      body,
    }).catch(() => null);
    await res?.body.dump();
    return { ms: performance.now() - t, ok: res?.statusCode === 200 };
  };
  const cold: number[] = [];
  const warm: number[] = [];
  let failed = 0;
  try {
    for (const raw of raws) {
      for (const [phase, into] of [
        ['cold', cold],
        ['warm', warm],
      ] as const) {
        const r = await send(raw);
        into.push(r.ms);
        if (!r.ok) failed++;
        // The cold request's COMMIT and cache fill, and the warm one's settle, land before the next.
        if (phase === 'warm') await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  } finally {
    await agent.close();
  }
  return {
    accounts: raws.length,
    coldP50Ms: percentile(cold, 50),
    coldP99Ms: percentile(cold, 99),
    warmP50Ms: percentile(warm, 50),
    warmP99Ms: percentile(warm, 99),
    failed,
  };
}

export async function runColdBurst(opts: {
  readonly edgeUrl: string;
  readonly databaseUrl: string;
  readonly accounts: number;
  /** Lone cold keys measured before the burst (default 50; none: 0). */
  readonly lone?: number;
  /**
   * A warm key of the bench's: a burst of `accounts` of its requests first, unrecorded, so the
   * edge's connections to the upstream and its code are as warm at that concurrency for the cold
   * phase as for the warm one (without it, the cold phase also paid the edge's first burst: about
   * 0.6 of its 1.2 CPU seconds, measured with a second batch of new accounts after the first).
   */
  readonly warmKey?: string;
  /** The process groups whose CPU each phase reports (stack.ts's cpuGroups). */
  readonly cpuGroups?: () => ReadonlyMap<string, readonly number[]>;
}): Promise<ColdBurstResult> {
  const raws = await createAccounts(opts.databaseUrl, opts.accounts, 10n ** 15n);
  const loneRaws = await createAccounts(opts.databaseUrl, opts.lone ?? 50, 10n ** 15n);
  // First, on a quiet stack: after the burst, the worker's writing of its 2,000 logs and charges
  // shares the load CPU with Postgres for seconds, and would time that rather than the cold path.
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const lone = loneRaws.length > 0 ? await loneKeys(opts.edgeUrl, loneRaws) : undefined;
  const agent = new Agent({ connections: opts.accounts, pipelining: 1 });
  let phases: { cold: ColdBurstPhase; warm: ColdBurstPhase };
  try {
    // Both phases on the same open sockets: otherwise the cold phase also pays 1,000 TCP
    // connections the warm one reuses, and measures the accept queue as much as the accounts.
    await openSockets(opts.edgeUrl, opts.accounts, agent);
    if (opts.warmKey !== undefined) {
      await burst(
        opts.edgeUrl,
        Array.from({ length: opts.accounts }, () => opts.warmKey!),
        agent,
      );
    }
    const cold = await burst(opts.edgeUrl, raws, agent, opts.cpuGroups);
    const warm = await burst(opts.edgeUrl, raws, agent, opts.cpuGroups);
    phases = { cold, warm };
  } finally {
    await agent.close();
  }
  return { accounts: opts.accounts, ...phases, ...(lone ? { lone } : {}) };
}

/** One line for the console summary and the doc. */
export function coldBurstLine(r: ColdBurstResult): string {
  const cpu = (p: ColdBurstPhase): string =>
    p.cpuSeconds
      ? `; CPU s ${Object.entries(p.cpuSeconds)
          .map(([g, sec]) => `${g} ${sec}`)
          .join(', ')}`
      : '';
  const phase = (p: ColdBurstPhase): string =>
    `${p.rps.toFixed(0)} req/s (p50 ${p.p50Ms.toFixed(0)} ms, p99 ${p.p99Ms.toFixed(0)} ms` +
    `${p.failed > 0 ? `, ${p.failed} failed` : ''}${cpu(p)})`;
  const lone = r.lone
    ? `. Lone cold keys (${r.lone.accounts}, one at a time): first request p50 ` +
      `${r.lone.coldP50Ms.toFixed(2)} ms (p99 ${r.lone.coldP99Ms.toFixed(2)}), the second ` +
      `${r.lone.warmP50Ms.toFixed(2)} ms (p99 ${r.lone.warmP99Ms.toFixed(2)}) ` +
      `(cold/warm ${(r.lone.coldP50Ms / r.lone.warmP50Ms).toFixed(2)}` +
      `${r.lone.failed > 0 ? `, ${r.lone.failed} failed` : ''})`
    : '';
  return (
    `Cold-account burst: ${r.accounts} new accounts' first requests at once ${phase(r.cold)}; ` +
    `the same again, warm, ${phase(r.warm)} (cold/warm ${(r.cold.rps / r.warm.rps).toFixed(2)})${lone}`
  );
}
