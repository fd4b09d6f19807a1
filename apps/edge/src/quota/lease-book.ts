import { type AdmissionSubject, type Budget, budgetWindow } from '#libs/quota';

/**
 * How the edge holds leases of headroom (docs/quota.md, "Leases"). The defaults are the
 * production values; tests shorten the times.
 */
export interface LeaseTuning {
  /** Off: every admission runs the ADMIT script (one round trip), as before leases. */
  readonly enabled: boolean;
  /** A lease lives this long from its grant or renewal (a crashed edge's comes back after it). */
  readonly ttlMs: number;
  /** Redis counts a lease this much past its end: the edges' clocks may differ by up to it. */
  readonly graceMs: number;
  /** A lease not used for this long is handed back. */
  readonly idleMs: number;
  /** A grant takes at most 1/share of the headroom left beside the other edges' leases. */
  readonly share: number;
  /** A renewal asks for this long's worth of the lease's recent spend. */
  readonly horizonMs: number;
  /** How often idle and ended leases are looked for. */
  readonly sweepMs: number;
}

/** Nest token of a `Partial<LeaseTuning>` (optional: the defaults apply without it). */
export const LEASE_TUNING = Symbol('LeaseTuning');

export const DEFAULT_LEASE_TUNING: LeaseTuning = Object.freeze({
  enabled: true,
  ttlMs: 10_000,
  graceMs: 2_000,
  idleMs: 5_000,
  share: 4,
  horizonMs: 2_000,
  sweepMs: 1_000,
});

/** One lease this edge holds: the headroom it may admit against without asking Redis. */
export class Lease {
  /** What is left: the last grant less the costs settled on it since (negative once overspent). */
  remaining = 0;
  /** The last grant's amount (the low-water mark is half of it). */
  granted = 0;
  expiresAtMs = 0;
  lastUsedMs: number;
  /** Costs settled on this lease, ever: a renewal subtracts those settled while it was on the wire. */
  spent = 0;
  /** The largest cost settled on it: a lease holds a few requests, however slow the key. */
  private largestCost = 0;
  /** Spend since `sinceMs`: the rate a renewal is sized from. */
  private windowSpent = 0;
  private sinceMs: number;
  /** The grant or renewal on the wire, shared by every admission waiting for it. */
  renewing: Promise<unknown> | null = null;
  /** Dropped from the book (returned, refused or ended): a renewal arriving late is ignored. */
  closed = false;

  constructor(
    readonly id: string,
    readonly account: string,
    readonly identity: string,
    nowMs: number,
  ) {
    this.lastUsedMs = nowMs;
    this.sinceMs = nowMs;
  }

  /** Whether an admission may be taken from memory: positive and not past its end. */
  usable(nowMs: number): boolean {
    return !this.closed && this.remaining > 0 && nowMs < this.expiresAtMs;
  }

  /** Whether to renew in the background: below half its grant, or in the last third of its life. */
  low(nowMs: number, ttlMs: number): boolean {
    return this.remaining < this.granted / 2 || this.expiresAtMs - nowMs < ttlMs / 3;
  }

  settle(costNanos: number): void {
    this.remaining -= costNanos;
    this.spent += costNanos;
    this.windowSpent += costNanos;
    if (costNanos > this.largestCost) this.largestCost = costNanos;
  }

  /**
   * What a renewal asks for: `horizonMs` of the spend rate seen since the last grant, and at least
   * four of the largest request seen (else a slow key's lease would hold less than its next
   * request, and every request would wait for a grant); null (the share decides) before any spend.
   */
  want(nowMs: number, horizonMs: number): number | null {
    if (this.largestCost <= 0) return null;
    const elapsed = Math.max(1, nowMs - this.sinceMs);
    return Math.max(4 * this.largestCost, Math.ceil((this.windowSpent / elapsed) * horizonMs));
  }

  /** A grant arrived: `spentBefore` is `spent` when it was asked for. */
  applyGrant(amountNanos: number, spentBefore: number, expiresAtMs: number, nowMs: number): void {
    this.granted = amountNanos;
    this.remaining = amountNanos - (this.spent - spentBefore);
    this.expiresAtMs = expiresAtMs;
    this.windowSpent = this.spent - spentBefore;
    this.sinceMs = nowMs;
  }
}

/** What a lease covers: the key, its spend limit and the budgets (with their limits) of the model. */
export function leaseIdentity(s: AdmissionSubject): string {
  const budgets = (s.budgets ?? []).map((b) => `${b.id}=${b.limitNanos}`).join(',');
  return `${s.keyId}|${s.keySpendLimitNanos ?? ''}|${budgets}`;
}

/** A lease never outlives a window of a budget it covers: a new window is granted afresh. */
export function leaseEnd(nowMs: number, ttlMs: number, budgets: readonly Budget[]): number {
  let end = nowMs + ttlMs;
  for (const b of budgets) {
    const w = budgetWindow(b, nowMs);
    // a rolling window moves at each bucket: its current bucket's end
    if (w.endMs !== null && w.endMs < end) end = w.endMs;
  }
  return end;
}

/** The edge's leases, by account and identity. Pure state: the gate does the Redis calls. */
export class LeaseBook {
  private readonly byAccount = new Map<string, Map<string, Lease>>();
  private seq = 0;
  /** Leases held (kept, not counted: settles read it on every request). */
  size = 0;

  constructor(private readonly instance: string) {}

  find(account: string, identity: string): Lease | undefined {
    return this.byAccount.get(account)?.get(identity);
  }

  open(account: string, identity: string, nowMs: number): Lease {
    let m = this.byAccount.get(account);
    if (m === undefined) this.byAccount.set(account, (m = new Map()));
    const lease = new Lease(`${this.instance}:${(++this.seq).toString(36)}`, account, identity, nowMs);
    const replaced = m.get(identity);
    if (replaced !== undefined) replaced.closed = true;
    else this.size++;
    m.set(identity, lease);
    return lease;
  }

  drop(lease: Lease): void {
    lease.closed = true;
    const m = this.byAccount.get(lease.account);
    if (m?.get(lease.identity) !== lease) return;
    m.delete(lease.identity);
    this.size--;
    if (m.size === 0) this.byAccount.delete(lease.account);
  }

  /** Leases idle for `idleMs` or past their end, by account (not renewing): to hand back. */
  idle(nowMs: number, idleMs: number): Map<string, Lease[]> {
    const out = new Map<string, Lease[]>();
    for (const [account, m] of this.byAccount) {
      for (const lease of m.values()) {
        if (lease.renewing !== null) continue;
        if (nowMs - lease.lastUsedMs < idleMs && nowMs < lease.expiresAtMs) continue;
        const list = out.get(account);
        if (list) list.push(lease);
        else out.set(account, [lease]);
      }
    }
    return out;
  }

  /** Every lease, by account (shutdown). */
  all(): Map<string, Lease[]> {
    return new Map([...this.byAccount].map(([a, m]) => [a, [...m.values()]]));
  }
}
