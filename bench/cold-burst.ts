import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { generateApiKey, hashApiKey } from '#libs/auth';
import { createDb, findOrCreateUserByEmail, insertApiKey } from '#libs/db';
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
}

export interface ColdBurstResult {
  readonly accounts: number;
  readonly cold: ColdBurstPhase;
  readonly warm: ColdBurstPhase;
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
async function burst(edgeUrl: string, raws: readonly string[], agent: Agent): Promise<ColdBurstPhase> {
  const body = chatBody(false);
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
  const latencies = results.map((r) => r.ms);
  return {
    rps: raws.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failed: results.filter((r) => !r.ok).length,
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

export async function runColdBurst(opts: {
  readonly edgeUrl: string;
  readonly databaseUrl: string;
  readonly accounts: number;
}): Promise<ColdBurstResult> {
  const raws = await createAccounts(opts.databaseUrl, opts.accounts, 10n ** 15n);
  const agent = new Agent({ connections: opts.accounts, pipelining: 1 });
  try {
    // Both phases on the same open sockets: otherwise the cold phase also pays 1,000 TCP
    // connections the warm one reuses, and measures the accept queue as much as the accounts.
    await openSockets(opts.edgeUrl, opts.accounts, agent);
    const cold = await burst(opts.edgeUrl, raws, agent);
    const warm = await burst(opts.edgeUrl, raws, agent);
    return { accounts: opts.accounts, cold, warm };
  } finally {
    await agent.close();
  }
}

/** One line for the console summary and the doc. */
export function coldBurstLine(r: ColdBurstResult): string {
  const phase = (p: ColdBurstPhase): string =>
    `${p.rps.toFixed(0)} req/s (p50 ${p.p50Ms.toFixed(0)} ms, p99 ${p.p99Ms.toFixed(0)} ms` +
    `${p.failed > 0 ? `, ${p.failed} failed` : ''})`;
  return (
    `Cold-account burst: ${r.accounts} new accounts' first requests at once ${phase(r.cold)}; ` +
    `the same again, warm, ${phase(r.warm)} (cold/warm ${(r.cold.rps / r.warm.rps).toFixed(2)})`
  );
}
