import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Kysely } from 'kysely';
import { type GatewayConfig } from '#libs/config';
import { type Database, pageQuotaTeamIds, pageQuotaUserIds } from '#libs/db';
import { accountSlot, modelGroupsOf, type QuotaDeps, rebuildQuotas } from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { Periodic } from '#libs/runtime';
import { CONFIG, DB, REDIS, REDIS_KEYS } from '../tokens.js';

/** Users per Postgres transaction in a sweep: their balance rows are locked for a few ms. */
const PAGE = 200;

export interface ReconcileSummary {
  /** Users whose durable quota was read. */
  readonly checked: number;
  /** Users whose Redis copy was rewritten from Postgres. */
  readonly rebuilt: number;
}

/**
 * Postgres is the truth, Redis the edges' fast copy: this rebuilds the copy from the truth, for
 * every loaded user every `quota.reconcile_interval_ms` (users Redis does not hold are left for the
 * edges to seed when they come back), and on demand for given users (written even if not loaded).
 * Each rebuild is exact and idempotent (rebuildQuotas explains why), so replicas may overlap.
 */
@Injectable()
export class QuotaReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(QuotaReconciler.name);
  private readonly deps: QuotaDeps;
  private readonly periodic = new Periodic(
    () => this.sweep(),
    (err) => this.logger.warn(`quota reconciliation failed (retried next interval): ${err.message}`),
  );

  constructor(
    @Inject(DB) db: Kysely<Database>,
    @Inject(REDIS) redis: RedisClient,
    @Inject(REDIS_KEYS) keys: RedisKeys,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {
    this.deps = { db, redis, keys };
  }

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.quota.reconcile_interval_ms);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** Every user and every team with a balance row whose copy Redis holds, page by page. */
  async sweep(): Promise<ReconcileSummary> {
    const users = await this.sweepPages(
      (after) => pageQuotaUserIds(this.deps.db, after, PAGE),
      (id) => id,
    );
    const teams = await this.sweepPages(
      (after) => pageQuotaTeamIds(this.deps.db, after, PAGE),
      (id) => accountSlot({ kind: 'team', id }),
    );
    return { checked: users.checked + teams.checked, rebuilt: users.rebuilt + teams.rebuilt };
  }

  private async sweepPages(
    page: (after: string | null) => Promise<string[]>,
    slotOf: (id: string) => string,
  ): Promise<ReconcileSummary> {
    let checked = 0;
    let rebuilt = 0;
    let after: string | null = null;
    for (;;) {
      const ids = await page(after);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      const loaded = await this.loadedOf(ids.map(slotOf));
      const results = await rebuildQuotas(this.deps, loaded, this.options('refresh'));
      checked += loaded.length;
      for (const r of results.values()) if (r.written) rebuilt++;
    }
    return { checked, rebuilt };
  }

  /**
   * On demand: these accounts' copies (a user's id, or `team:<id>` for a team), written whether
   * or not Redis held them.
   */
  async reconcileUsers(userIds: readonly string[]): Promise<Map<string, bigint | null>> {
    const out = new Map<string, bigint | null>();
    for (let i = 0; i < userIds.length; i += PAGE) {
      const results = await rebuildQuotas(this.deps, userIds.slice(i, i + PAGE), this.options('force'));
      for (const [userId, r] of results) out.set(userId, r.balanceNanos);
    }
    return out;
  }

  private options(mode: 'refresh' | 'force') {
    return {
      mode,
      pendingMaxAgeMs: this.config.quota.pending_max_age_ms,
      modelGroups: modelGroupsOf(this.config),
    };
  }

  private async loadedOf(userIds: readonly string[]): Promise<string[]> {
    const exists = await Promise.all(
      userIds.map((u) => this.deps.redis.exists(this.deps.keys.quotaBalance(u))),
    );
    return userIds.filter((_, i) => exists[i] === 1);
  }
}
