import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type Database, usageByDayAndModel, type UsageScope } from '#libs/db';
import { type BalanceView, readBalance, readTeamBalance } from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { creditsOf } from '../credits.js';
import { DB, REDIS, REDIS_KEYS } from '../tokens.js';

export interface UsageDay {
  readonly day: string;
  readonly model: string | null;
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costCredits: number;
  /** Prompt tokens read from the cache, and their share of all prompt tokens (0 when none). */
  readonly cachedTokens: number;
  readonly cacheHitRate: number;
  readonly cacheWriteTokens: number;
  /** What caching saved against the uncached input price (negative: writes cost more than reads saved). */
  readonly cacheSavingsCredits: number;
}

export interface UsageReport {
  readonly from: string;
  readonly to: string;
  readonly balanceCredits: number;
  /** Spend within from..to. */
  readonly spentCredits: number;
  readonly totals: { requests: number; inputTokens: number; outputTokens: number; costCredits: number };
  readonly days: UsageDay[];
}

@Injectable()
export class UsageService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  /** A user's own account: its balance and the requests of its keys of no team. */
  report(userId: string, from: Date, to: Date): Promise<UsageReport> {
    return this.build(readBalance(this.deps, userId), userId, from, to);
  }

  /**
   * A team's account: its balance, and every request of its keys, or only `memberId`'s (what a
   * member who is not a team admin sees).
   */
  teamReport(teamId: string, from: Date, to: Date, memberId?: string): Promise<UsageReport> {
    return this.build(readTeamBalance(this.deps, teamId), { teamId, userId: memberId }, from, to);
  }

  private get deps() {
    return { db: this.db, redis: this.redis, keys: this.keys };
  }

  private async build(
    balanceOf: Promise<BalanceView>,
    scope: UsageScope,
    from: Date,
    to: Date,
  ): Promise<UsageReport> {
    const [balance, rows] = await Promise.all([balanceOf, usageByDayAndModel(this.db, scope, from, to)]);
    let costNanos = 0n;
    const totals = { requests: 0, inputTokens: 0, outputTokens: 0, costCredits: 0 };
    const days = rows.map((r): UsageDay => {
      costNanos += BigInt(r.cost_nanos);
      totals.requests += r.requests;
      totals.inputTokens += Number(r.input_tokens);
      totals.outputTokens += Number(r.output_tokens);
      return {
        day: r.day,
        model: r.model,
        requests: r.requests,
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        costCredits: creditsOf(r.cost_nanos),
        cachedTokens: Number(r.cached_tokens),
        cacheHitRate: Number(r.input_tokens) > 0 ? Number(r.cached_tokens) / Number(r.input_tokens) : 0,
        cacheWriteTokens: Number(r.cache_write_tokens),
        cacheSavingsCredits: creditsOf(r.cache_savings_nanos),
      };
    });
    totals.costCredits = creditsOf(costNanos);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      // What the edges admit against now (unsettled charges included) when Redis holds a copy.
      balanceCredits: creditsOf(balance.liveNanos ?? balance.balanceNanos),
      spentCredits: totals.costCredits,
      totals,
      days,
    };
  }
}
