import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Catalog } from '#libs/config';
import { buildRouteTable, type RouteTable } from '#libs/routing';
import { LeaderLease } from '../leader/leader-lease.js';
import { HealthTracker } from '../probe/health-tracker.service.js';
import { CATALOG, ROUTER_OPTIONS, type RouterOptions } from '../tokens.js';
import { RoutesStore } from './routes.store.js';
import { RouteView } from './route-view.service.js';

export interface RoutesSnapshot {
  readonly leader: boolean;
  readonly table: RouteTable | null;
}

/**
 * Every replica keeps trying to hold the leader lease. The leader probes each interval (a cycle
 * never overlaps the previous one) and publishes the ranked table when a state or reason changed,
 * plus an unchanged republish every `refreshMs` so the key never goes stale for late edges.
 */
@Injectable()
export class RoutePublisher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RoutePublisher.name);
  private published: RouteTable | null = null;
  private publishedSignature = '';
  private publishedAt = 0;
  private wasLeader = false;
  private cycle: Promise<void> | null = null;
  private leaseTick: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(ROUTER_OPTIONS) private readonly options: RouterOptions,
    private readonly lease: LeaderLease,
    private readonly health: HealthTracker,
    private readonly store: RoutesStore,
    private readonly view: RouteView,
  ) {}

  onApplicationBootstrap(): void {
    const renewEvery = Math.max(1, Math.floor(this.options.leaseMs / 3));
    this.timers.push(setInterval(() => this.onLeaseTick(), renewEvery));
    this.timers.push(setInterval(() => this.onProbeTick(), this.catalog.config.router.probe_interval_ms));
    this.onLeaseTick();
  }

  /** Stops probing, lets a running cycle end (bounded by the probe timeout), hands the lease over. */
  async onModuleDestroy(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.allSettled([this.cycle, this.leaseTick]);
    try {
      await this.lease.release();
    } catch (err) {
      this.logger.warn(`could not release the leader lease: ${(err as Error).message}`);
    }
  }

  /** The newest table known here: our own last publish, or what the view last heard. */
  snapshot(): RoutesSnapshot {
    const mine = this.published;
    const seen = this.view.current();
    const table = mine && (!seen || mine.version >= seen.version) ? mine : seen;
    return { leader: this.lease.isLeader(), table };
  }

  private onLeaseTick(): void {
    if (this.leaseTick || this.timers.length === 0) return;
    this.leaseTick = this.renewLease().finally(() => (this.leaseTick = null));
  }

  private onProbeTick(): void {
    if (this.cycle || this.timers.length === 0 || !this.lease.isLeader()) return;
    this.cycle = this.runCycle().finally(() => (this.cycle = null));
  }

  private async renewLease(): Promise<void> {
    try {
      await this.lease.acquireOrRenew();
    } catch (err) {
      this.logger.warn(`leader lease renewal failed: ${(err as Error).message}`);
    }
    const leader = this.lease.isLeader();
    if (leader === this.wasLeader) return;
    this.wasLeader = leader;
    if (!leader) {
      this.logger.warn('lost the leader lease: stopped probing');
      return;
    }
    this.logger.log('became leader: probing providers and publishing routes');
    this.health.reset(this.view.current());
    this.published = null;
    this.publishedSignature = '';
    this.onProbeTick();
  }

  private async runCycle(): Promise<void> {
    await this.health.probeAll();
    try {
      await this.publishIfDue(Date.now());
    } catch (err) {
      this.logger.warn(`publishing routes failed (retried next cycle): ${(err as Error).message}`);
    }
  }

  private async publishIfDue(now: number): Promise<void> {
    const draft = buildRouteTable(this.catalog, this.health.current(), 0, new Date(now));
    const signature = JSON.stringify(draft.models);
    let table: RouteTable;
    if (signature !== this.publishedSignature) table = { ...draft, version: await this.store.nextVersion() };
    else if (this.published && now - this.publishedAt >= this.options.refreshMs) table = this.published;
    else return;
    // The lease may have lapsed while probes ran: a former leader must not overwrite the new one.
    if (!this.lease.isLeader()) return;
    await this.store.publish(table);
    this.published = table;
    this.publishedSignature = signature;
    this.publishedAt = now;
  }
}
