import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { type Context, context } from '@opentelemetry/api';
import { type Kysely } from 'kysely';
import { type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { type Database } from '#libs/db';
import {
  admitRequest,
  admitRequestRate,
  type AdmissionSubject,
  type AdmissionVerdict,
  budgetsFor,
  groupRateLimits,
  hasAnyRateLimit,
  hasRateLimit,
  keyAccountSlot,
  type LeaseRequest,
  type LeaseVerdict,
  keyRateLimits,
  modelGroupsOf,
  type ModelGroups,
  NO_LIMITS,
  type RateLimits,
  rebuildQuotas,
  type PendingSettle,
  subjectSlot,
  settleThenAdmit,
  leaseCall,
  leaseVerdict,
  settleThenLease,
  settleThenReturnLeases,
} from '#libs/quota';
import { GatewayError } from '#libs/protocol';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { takeFromPostgres } from '../auth/key-resolver.service.js';
import { CLOCK, CONFIG, DB, REDIS, REDIS_KEYS } from '../tokens.js';
import { budgetDenialError, denialError } from './quota-errors.js';
import {
  DEFAULT_LEASE_TUNING,
  type Lease,
  LeaseBook,
  leaseEnd,
  leaseIdentity,
  LEASE_TUNING,
  type LeaseTuning,
} from './lease-book.js';
import { SeedBatcher, type SeedLease } from './seed-batcher.js';

/** What a finished request settles, as its RequestRecord has it. */
export interface SettledRequest {
  readonly key: KeyRecord | null;
  readonly model: string | null;
  readonly requestId: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | null;
  /** From this gate's clock: places the charge in its budget windows. */
  readonly startedAt: Date;
}

/** At most one "Redis unavailable" warning per this long: a Redis outage must not flood the log. */
const WARN_EVERY_MS = 10_000;
/**
 * How long a settle waits for its owner's next admission to ride in (one script call for both)
 * before it leaves on its own. Other edges see the charge this much later at most; this edge's
 * admissions always see it, since it is applied before them. docs/quota.md has the bound.
 */
export const SETTLE_LINGER_MS = 10;
/** Settles per script call: bounds the call's size (Lua's unpack) whatever the backlog. */
const MAX_SETTLES_PER_CALL = 32;

/** A request's admission subject and the identity of the lease it is admitted from. */
interface Subjected {
  readonly subject: AdmissionSubject;
  readonly identity: string;
}

/** A settle waiting, with the trace context of its request (its span belongs there). */
type Waiting = PendingSettle & { readonly trace: Context };

/**
 * The edge's quota gate, for every endpoint: `admit` before the upstream call (one Redis round
 * trip: balance, key spend limit, budgets, key and group rpm/tpm), `settle` after the response
 * (debits the exact cost and counts tokens, without delaying the client). docs/quota.md has the
 * design. Its clock (injected: tests cross midnight with it) dates both the admission and the
 * request's start, which places the charge in its budget windows, in Redis and in Postgres alike.
 */
@Injectable()
export class QuotaGate implements OnApplicationShutdown {
  private readonly logger = new Logger(QuotaGate.name);
  private readonly groupLimits: ReadonlyMap<string, RateLimits>;
  private readonly modelGroups: ModelGroups;
  private readonly pendingMaxAgeMs: number;
  private readonly refuseWhenUnavailable: boolean;
  /**
   * Cold accounts' balances loaded from Postgres, many accounts a transaction: concurrent misses of
   * one account share one load, and those of a burst of accounts share a few (seed-batcher.ts).
   */
  private readonly seeds: SeedBatcher;
  private lastWarnAt = 0;
  /**
   * Settles waiting to ride in their account's next admission, by account slot (one Cluster slot
   * each): a user's id, or a team's `team:<id>` for team keys (docs/teams.md).
   */
  private readonly pending = new Map<string, Waiting[]>();
  private lingerTimer: NodeJS.Timeout | null = null;
  private readonly tuning: LeaseTuning;
  /** Leases of headroom this edge admits from without a round trip (docs/quota.md, "Leases"). */
  private readonly leases = new LeaseBook(`${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`);
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly subjects = new WeakMap<KeyRecord, Map<string | null, Subjected>>();
  /** Admissions taken from a lease, and those that waited for a grant (the measure of docs/quota.md). */
  readonly counts = { leased: 0, granted: 0, scripted: 0 };

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(CLOCK) readonly now: () => number,
    @Optional() @Inject(LEASE_TUNING) tuning?: Partial<LeaseTuning>,
  ) {
    this.tuning = { ...DEFAULT_LEASE_TUNING, ...tuning };
    this.groupLimits = groupRateLimits(config);
    this.modelGroups = modelGroupsOf(config);
    this.pendingMaxAgeMs = config.quota.pending_max_age_ms;
    this.refuseWhenUnavailable = config.quota.when_unavailable === 'refuse';
    this.seeds = new SeedBatcher((accounts, loaded) => {
      const leases = new Map<string, SeedLease>();
      for (const [account, lease] of accounts) if (lease !== undefined) leases.set(account, lease);
      return rebuildQuotas({ db: this.db, redis: this.redis, keys: this.keys }, [...accounts.keys()], {
        mode: 'seed',
        pendingMaxAgeMs: this.pendingMaxAgeMs,
        now: this.now,
        modelGroups: this.modelGroups,
        leases,
        onLoaded: (account, _result, leaseReply) => loaded(account, leaseReply),
      });
    });
  }

  /**
   * Throws `insufficient_quota` or `rate_limit_exceeded` (with retry-after) when the request may
   * not go upstream. Quota that cannot be checked (Redis, or Postgres while seeding, unreachable)
   * lets the request through by default (warned): charges still reach Postgres, and the balance
   * catches up when Redis is back. With `quota.when_unavailable: refuse` it throws
   * `quota_unavailable` instead.
   */
  async admit(key: KeyRecord, model: string): Promise<void> {
    const { subject, identity } = this.subjected(key, model);
    const cold = takeFromPostgres(key);
    if (this.tuning.enabled && !hasAnyRateLimit(subject)) return this.admitLeased(subject, identity, cold);
    this.counts.scripted++;
    const account = keyAccountSlot(key);
    const carried = this.takePending(account);
    let verdict: AdmissionVerdict;
    try {
      if (cold) await this.seed(account);
      verdict = await this.admitCarrying(subject, carried);
      if (!verdict.ok && verdict.reason === 'not_loaded') {
        await this.seed(account);
        verdict = await admitRequest(this.redis, this.keys, subject, this.now());
      }
    } catch (err) {
      return this.unavailable(err as Error);
    }
    if (verdict.ok) return;
    // Still not loaded after a seed: the account has no balance row (nor user or team); nothing to spend.
    if (verdict.reason === 'not_loaded') throw denialError('balance', null, subject);
    if (verdict.reason === 'budget') throw budgetDenialError(verdict.budget, verdict.resetsAtMs, this.now());
    throw denialError(verdict.reason, verdict.retryAfterSeconds, subject);
  }

  /**
   * Admission from this edge's lease of the key's headroom: no round trip while the lease is
   * positive and current (renewed in the background below its low-water mark); a cold, spent or
   * ended lease waits for one grant (which carries the account's waiting settles). Refusals and
   * an unreachable Redis are answered as by the script. `cold`: the key was just read from
   * Postgres, so its first grant goes straight to the account's load (the lease in its call).
   */
  private async admitLeased(subject: AdmissionSubject, identity: string, cold: boolean): Promise<void> {
    const now = this.now();
    const account = subjectSlot(subject);
    let lease = this.leases.find(account, identity);
    if (lease?.usable(now)) {
      this.counts.leased++;
      lease.lastUsedMs = now;
      if (lease.renewing === null && lease.low(now, this.tuning.ttlMs)) {
        this.renew(lease, subject).catch((err: Error) => this.warn(`lease not renewed: ${err.message}`));
      }
      return;
    }
    this.counts.granted++;
    lease ??= this.openLease(account, identity, now);
    lease.lastUsedMs = now;
    let verdict: LeaseVerdict;
    try {
      verdict = await this.renew(lease, subject, cold);
    } catch (err) {
      return this.unavailable(err as Error);
    }
    if (verdict.ok) return;
    if (verdict.reason === 'not_loaded') throw denialError('balance', null, subject);
    if (verdict.reason === 'budget') throw budgetDenialError(verdict.budget, verdict.resetsAtMs, this.now());
    throw denialError(verdict.reason, verdict.retryAfterSeconds, subject);
  }

  private openLease(account: string, identity: string, now: number): Lease {
    const lease = this.leases.open(account, identity, now);
    if (this.sweepTimer === null) {
      this.sweepTimer = setInterval(this.sweepLeases, this.tuning.sweepMs);
      this.sweepTimer.unref();
    }
    return lease;
  }

  /** One grant or renewal of a lease at a time; admissions waiting for it share it. */
  private renew(lease: Lease, subject: AdmissionSubject, cold = false): Promise<LeaseVerdict> {
    if (lease.renewing !== null) return lease.renewing as Promise<LeaseVerdict>;
    const p = this.grant(lease, subject, cold).finally(() => {
      lease.renewing = null;
    });
    lease.renewing = p;
    return p;
  }

  private async grant(lease: Lease, subject: AdmissionSubject, cold: boolean): Promise<LeaseVerdict> {
    const now = this.now();
    const spentBefore = lease.spent;
    const req = {
      leaseId: lease.id,
      wantNanos: lease.want(now, this.tuning.horizonMs),
      expiresAtMs: leaseEnd(now, this.tuning.ttlMs, subject.budgets ?? []),
      graceMs: this.tuning.graceMs,
      share: this.tuning.share,
    };
    const carried = this.takePending(lease.account);
    let verdict: LeaseVerdict;
    try {
      // A cold key's account is loaded first, unless settles wait to ride in the lease call.
      verdict =
        cold && carried.length === 0
          ? await this.loadThenLease(lease, subject, req, now)
          : await settleThenLease(this.redis, this.keys, carried, subject, req, now);
      if (!verdict.ok && verdict.reason === 'not_loaded')
        verdict = await this.loadThenLease(lease, subject, req, now);
    } catch (err) {
      if (carried.length > 0) this.settleFailed(carried.length, err as Error);
      throw err;
    }
    if (lease.closed) {
      // Handed back (shutdown) while this grant was on the wire: hand its entry back too.
      if (verdict.ok) this.returnLeases(lease.account, [lease]);
    } else if (verdict.ok) {
      lease.applyGrant(verdict.amountNanos, spentBefore, req.expiresAtMs, now);
    } else {
      this.leases.drop(lease); // Redis dropped its entry with the refusal
    }
    return verdict;
  }

  /** The account's load with the lease in its own Redis call; only a load too large to carry it asks apart. */
  private async loadThenLease(
    lease: Lease,
    subject: AdmissionSubject,
    req: LeaseRequest,
    now: number,
  ): Promise<LeaseVerdict> {
    const reply = await this.seeds.seed(lease.account, leaseCall(this.keys, subject, req, now));
    return reply === undefined
      ? settleThenLease(this.redis, this.keys, [], subject, req, now)
      : leaseVerdict(reply, now, subject);
  }

  /** Idle and ended leases go back to their account, with its waiting settles in the same call. */
  private readonly sweepLeases = (): void => {
    for (const [account, list] of this.leases.idle(this.now(), this.tuning.idleMs)) {
      for (const lease of list) this.leases.drop(lease);
      this.returnLeases(account, list);
    }
    this.stopSweepWhenEmpty();
  };

  private stopSweepWhenEmpty(): void {
    if (this.leases.size > 0 || this.sweepTimer === null) return;
    clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  private returnLeases(account: string, list: readonly Lease[]): Promise<void> {
    const carried = this.takePending(account);
    const ids = list.map((l) => l.id);
    return settleThenReturnLeases(this.redis, this.keys, carried, account, ids, this.now()).catch(
      (err: Error) => {
        if (carried.length > 0) this.settleFailed(carried.length, err);
        this.warn(`${ids.length} leases not handed back (they end by themselves): ${err.message}`);
      },
    );
  }

  /**
   * Whether a request admitted for `from` may fall back to `to` (docs/routing.md, "Fallbacks"):
   * the budgets that count `to` but not `from` must have room, as an admission for `to` would
   * check. The balance, spend limit and rates were admitted once for the request, and are not
   * counted again. No such budget: no Redis call. Quota that cannot be checked lets it through or
   * not as `admit` would (`quota.when_unavailable`).
   */
  async admitFallback(key: KeyRecord, from: string, to: string): Promise<boolean> {
    const admitted = new Set(budgetsFor(key.budgets, key.id, from, this.modelGroups));
    const extra = budgetsFor(key.budgets, key.id, to, this.modelGroups).filter((b) => !admitted.has(b));
    if (extra.length === 0) return true;
    const subject = {
      ...this.subjectOf(key, null),
      keyLimits: NO_LIMITS,
      groupLimits: NO_LIMITS,
      budgets: extra,
    };
    try {
      const verdict = await admitRequest(this.redis, this.keys, subject, this.now());
      // The balance was loaded by the request's own admission; gone since, the seed is the next one's.
      return verdict.ok || verdict.reason === 'not_loaded';
    } catch (err) {
      if (this.refuseWhenUnavailable) return false;
      this.warn(`fallback budgets not enforced (Redis unavailable): ${(err as Error).message}`);
      return true;
    }
  }

  /**
   * The free token-count endpoints' admission: the key's and its group's request rate (rpm), in
   * the same windows as `admit`, and nothing else, so counting works at a zero balance and is
   * never charged, but cannot be sent faster than the key may send requests (the vendors limit
   * their own counting endpoints too). Throws `rate_limit_exceeded`; Redis down as for `admit`.
   */
  async admitRate(key: KeyRecord): Promise<void> {
    const subject = this.subjectOf(key, null);
    if (!hasRateLimit(subject)) return;
    let verdict: AdmissionVerdict;
    try {
      verdict = await admitRequestRate(this.redis, this.keys, subject, this.now());
    } catch (err) {
      return this.unavailable(err as Error);
    }
    if (verdict.ok) return;
    if (verdict.reason === 'key_rpm' || verdict.reason === 'group_rpm') {
      throw denialError(verdict.reason, verdict.retryAfterSeconds, subject);
    }
    throw new Error(`rate admission returned ${verdict.reason}`);
  }

  /** Quota that cannot be checked: let through (warned), or refused with `quota.when_unavailable: refuse`. */
  private unavailable(err: Error): void {
    if (this.refuseWhenUnavailable) {
      this.warn(`requests refused, quota cannot be checked (Redis or Postgres unavailable): ${err.message}`);
      throw new GatewayError('quota_unavailable', 'Quota cannot be checked right now; retry shortly.', {
        retryAfterSeconds: 1,
      });
    }
    this.warn(`quota not enforced (Redis or Postgres unavailable): ${err.message}`);
  }

  /**
   * Debits the request's exact cost and counts its tokens, fire and forget: the client's response
   * never waits on it. It rides in the owner's next admission on this edge if one comes within
   * SETTLE_LINGER_MS (the usual case for an agent or any busy key), else leaves with the owner's
   * other waiting settles in one call. A failure leaves the debit to the next reconciliation
   * (Postgres gets the charge from the log either way).
   */
  settle(request: SettledRequest, costNanos: number): void {
    const { key, usage, requestId } = request;
    const tokens = usage ? usage.inputTokens + usage.outputTokens : 0;
    if (key === null || (costNanos <= 0 && tokens <= 0)) return;
    const account = keyAccountSlot(key);
    const { subject, identity } = this.subjected(key, request.model);
    // The lease it was admitted from pays at once: this edge's next admissions see the cost. One
    // spent leaves at once, with the account's other settles: other edges' grants must see what
    // this edge spent past its lease (the overdraw bound) without waiting the linger time.
    let spent = false;
    if (this.leases.size > 0) {
      const lease = this.leases.find(account, identity);
      if (lease !== undefined) {
        lease.settle(costNanos);
        spent = lease.remaining <= 0 && lease.renewing === null;
      }
    }
    let waiting = this.pending.get(account);
    if (waiting === undefined) this.pending.set(account, (waiting = []));
    waiting.push({
      subject,
      charge: { requestId, costNanos, tokens, startedAtMs: request.startedAt.getTime() },
      trace: context.active(),
    });
    if (spent || waiting.length >= MAX_SETTLES_PER_CALL) this.flushAccount(account);
    else this.lingerTimer ??= setTimeout(this.flushPending, SETTLE_LINGER_MS);
  }

  /**
   * Settles of requests that finished during the drain leave before the shared client closes, and
   * every lease is handed back with them (written before the client's closing PING and QUIT).
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    const returns: Array<Promise<void>> = [];
    for (const [account, list] of this.leases.all()) {
      for (const lease of list) this.leases.drop(lease);
      returns.push(this.returnLeases(account, list));
    }
    this.flushPending();
    await Promise.all(returns);
  }

  /** The admission, with the owner's waiting settles applied first in the same call. */
  private async admitCarrying(
    subject: AdmissionSubject,
    carried: readonly Waiting[],
  ): Promise<AdmissionVerdict> {
    try {
      return await settleThenAdmit(this.redis, this.keys, carried, subject, this.now());
    } catch (err) {
      if (carried.length > 0) this.settleFailed(carried.length, err as Error);
      throw err;
    }
  }

  /** What an account's admission carries: its waiting settles, up to one call's worth. */
  private takePending(account: string): Waiting[] {
    const waiting = this.pending.get(account);
    if (waiting === undefined) return [];
    if (waiting.length <= MAX_SETTLES_PER_CALL) {
      this.pending.delete(account);
      return waiting;
    }
    return waiting.splice(0, MAX_SETTLES_PER_CALL);
  }

  private readonly flushPending = (): void => {
    if (this.lingerTimer !== null) clearTimeout(this.lingerTimer);
    this.lingerTimer = null;
    for (const account of [...this.pending.keys()]) this.flushAccount(account);
  };

  /** Sends an account's waiting settles without an admission, in the first one's trace context. */
  private flushAccount(account: string): void {
    for (;;) {
      const batch = this.takePending(account);
      if (batch.length === 0) return;
      context
        .with(batch[0]!.trace, () => settleThenAdmit(this.redis, this.keys, batch, null, this.now()))
        .catch((err: Error) => this.settleFailed(batch.length, err));
    }
  }

  private settleFailed(count: number, err: Error): void {
    this.warn(`${count} charges not debited in Redis (reconciliation will): ${err.message}`);
  }

  private subjectOf(key: KeyRecord, model: string | null): AdmissionSubject {
    return this.subjected(key, model).subject;
  }

  /**
   * The request's subject and lease identity, built once per key record and model: a record is
   * immutable and the same object while the key resolver caches it, so a warm key's requests
   * allocate neither (the hot path of issue 25). A reloaded record is a new object, with its own.
   */
  private subjected(key: KeyRecord, model: string | null): Subjected {
    let byModel = this.subjects.get(key);
    if (byModel === undefined) this.subjects.set(key, (byModel = new Map()));
    let found = byModel.get(model);
    if (found === undefined) {
      const subject = this.buildSubject(key, model);
      byModel.set(model, (found = { subject, identity: leaseIdentity(subject) }));
    }
    return found;
  }

  private buildSubject(key: KeyRecord, model: string | null): AdmissionSubject {
    return {
      userId: key.userId,
      accountId: keyAccountSlot(key),
      keyId: key.id,
      group: key.group,
      keySpendLimitNanos: key.spendLimitNanos ?? null,
      keyLimits: keyRateLimits(key),
      groupLimits: this.groupLimits.get(key.group) ?? NO_LIMITS,
      budgets: model === null ? [] : budgetsFor(key.budgets, key.id, model, this.modelGroups),
    };
  }

  /** Loads the account's balance from Postgres into Redis unless another edge already did (SET NX semantics). */
  private async seed(account: string): Promise<void> {
    await this.seeds.seed(account);
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.logger.warn(message);
  }
}
