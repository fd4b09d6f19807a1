import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type Context, context } from '@opentelemetry/api';
import { type Kysely } from 'kysely';
import { type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { type Database } from '#libs/db';
import {
  admitRequest,
  type AdmissionSubject,
  type AdmissionVerdict,
  budgetsFor,
  groupRateLimits,
  keyRateLimits,
  modelGroupsOf,
  type ModelGroups,
  NO_LIMITS,
  type RateLimits,
  rebuildQuotas,
  settleRequest,
  type SettleInput,
} from '#libs/quota';
import { GatewayError } from '#libs/protocol';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { CLOCK, CONFIG, DB, REDIS, REDIS_KEYS } from '../tokens.js';
import { budgetDenialError, denialError } from './quota-errors.js';

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
  /** Seeds in progress per user: concurrent cache misses of one user share one Postgres read. */
  private readonly seeding = new Map<string, Promise<void>>();
  private lastWarnAt = 0;
  /** Settles waiting for the end of this event-loop turn, to leave for Redis together. */
  private settles: Array<{ subject: AdmissionSubject; charge: SettleInput; trace: Context }> = [];

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(CLOCK) readonly now: () => number,
  ) {
    this.groupLimits = groupRateLimits(config);
    this.modelGroups = modelGroupsOf(config);
    this.pendingMaxAgeMs = config.quota.pending_max_age_ms;
    this.refuseWhenUnavailable = config.quota.when_unavailable === 'refuse';
  }

  /**
   * Throws `insufficient_quota` or `rate_limit_exceeded` (with retry-after) when the request may
   * not go upstream. Quota that cannot be checked (Redis, or Postgres while seeding, unreachable)
   * lets the request through by default (warned): charges still reach Postgres, and the balance
   * catches up when Redis is back. With `quota.when_unavailable: refuse` it throws
   * `quota_unavailable` instead.
   */
  async admit(key: KeyRecord, model: string): Promise<void> {
    const subject = this.subjectOf(key, model);
    let verdict: AdmissionVerdict;
    try {
      verdict = await admitRequest(this.redis, this.keys, subject, this.now());
      if (!verdict.ok && verdict.reason === 'not_loaded') {
        await this.seed(key.userId);
        verdict = await admitRequest(this.redis, this.keys, subject, this.now());
      }
    } catch (err) {
      const message = (err as Error).message;
      if (this.refuseWhenUnavailable) {
        this.warn(`requests refused, quota cannot be checked (Redis or Postgres unavailable): ${message}`);
        throw new GatewayError('quota_unavailable', 'Quota cannot be checked right now; retry shortly.', {
          retryAfterSeconds: 1,
        });
      }
      this.warn(`quota not enforced (Redis or Postgres unavailable): ${message}`);
      return;
    }
    if (verdict.ok) return;
    // Still not loaded after a seed: the owner has no balance row (nor user row); nothing to spend.
    if (verdict.reason === 'not_loaded') throw denialError('balance', null, subject);
    if (verdict.reason === 'budget') throw budgetDenialError(verdict.budget, verdict.resetsAtMs);
    throw denialError(verdict.reason, verdict.retryAfterSeconds, subject);
  }

  /**
   * Debits the request's exact cost and counts its tokens, fire and forget: the client's response
   * never waits on it. A failure leaves the debit to the next reconciliation (Postgres gets the
   * charge from the log either way).
   */
  settle(request: SettledRequest, costNanos: number): void {
    const { key, usage, requestId } = request;
    const tokens = usage ? usage.inputTokens + usage.outputTokens : 0;
    if (key === null || (costNanos <= 0 && tokens <= 0)) return;
    // Requests finishing in one event-loop turn (under load, many: every upstream answer read in
    // one poll) settle together: issued in one synchronous run, auto-pipelining sends them in one
    // write. Settling one by one cost a socket write per request, the edge's largest syscall share.
    if (this.settles.length === 0) setImmediate(this.flushSettles);
    this.settles.push({
      subject: this.subjectOf(key, request.model),
      charge: { requestId, costNanos, tokens, startedAtMs: request.startedAt.getTime() },
      // The batch leaves in the first request's context: each settle's span belongs to its own.
      trace: context.active(),
    });
  }

  /** Settles of requests that finished during the drain leave before the shared client closes. */
  onApplicationShutdown(): void {
    this.flushSettles();
  }

  private readonly flushSettles = (): void => {
    const batch = this.settles;
    this.settles = [];
    for (const { subject, charge, trace } of batch) {
      context
        .with(trace, () => settleRequest(this.redis, this.keys, subject, charge, this.now()))
        .catch((err: Error) =>
          this.warn(`charge ${charge.requestId} not debited in Redis (reconciliation will): ${err.message}`),
        );
    }
  };

  private subjectOf(key: KeyRecord, model: string | null): AdmissionSubject {
    return {
      userId: key.userId,
      keyId: key.id,
      group: key.group,
      keySpendLimitNanos: key.spendLimitNanos ?? null,
      keyLimits: keyRateLimits(key),
      groupLimits: this.groupLimits.get(key.group) ?? NO_LIMITS,
      budgets: model === null ? [] : budgetsFor(key.budgets, key.id, model, this.modelGroups),
    };
  }

  /** Loads the user's balance from Postgres into Redis unless another edge already did (SET NX semantics). */
  private seed(userId: string): Promise<void> {
    let p = this.seeding.get(userId);
    if (p === undefined) {
      p = rebuildQuotas({ db: this.db, redis: this.redis, keys: this.keys }, [userId], {
        mode: 'seed',
        pendingMaxAgeMs: this.pendingMaxAgeMs,
        now: this.now,
        modelGroups: this.modelGroups,
      })
        .then(() => undefined)
        .finally(() => this.seeding.delete(userId));
      this.seeding.set(userId, p);
    }
    return p;
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.logger.warn(message);
  }
}
