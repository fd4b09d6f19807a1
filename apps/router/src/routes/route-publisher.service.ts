import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Catalog } from '#libs/config';
import { FailureRun } from '#libs/redis';
import { buildRouteTable, type RouteTable } from '#libs/routing';
import { LeaderLease } from '../leader/leader-lease.js';
import { HealthTracker } from '../probe/health-tracker.service.js';
import { PassiveHealth } from '../samples/passive-health.service.js';
import { SamplesConsumer } from '../samples/samples-consumer.service.js';
import { CATALOG, ROUTER_OPTIONS, type RouterOptions } from '../tokens.js';
import { publishDecision } from './publish-policy.js';
import { RoutesStore } from './routes.store.js';
import { RouteView } from './route-view.service.js';

export interface RoutesSnapshot {
  readonly leader: boolean;
  readonly table: RouteTable | null;
}

/** Breaker cooldowns are checked at least this often. */
const EVALUATE_EVERY_MS = 1_000;

/**
 * Every replica keeps trying to hold the leader lease. The leader probes each interval (a cycle
 * never overlaps the previous one), consumes the edges' samples, and re-evaluates the table after
 * each probe cycle, each sample batch and at least every second; `publishDecision` says when a
 * table goes out (state changes at once, figures at a bounded rate, unchanged every `refreshMs`).
 */
@Injectable()
export class RoutePublisher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RoutePublisher.name);
  /** Both fail at every cycle while Redis is down: told once per run of failures. */
  private readonly publishing = new FailureRun(this.logger, 'publishing routes');
  private readonly renewing = new FailureRun(this.logger, 'leader lease renewal');
  private published: RouteTable | null = null;
  private evaluating: Promise<void> | null = null;
  private evaluateAgain = false;
  /** No table before the first probe cycle as leader: "no probe yet" everywhere says little. */
  private probed = false;
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
    private readonly passive: PassiveHealth,
    private readonly samples: SamplesConsumer,
    private readonly store: RoutesStore,
    private readonly view: RouteView,
  ) {}

  onApplicationBootstrap(): void {
    // A new configuration version: its providers probed and its routes published at once.
    this.catalog.onChange(() => {
      this.onProbeTick();
      this.evaluate();
    });
    const renewEvery = Math.max(1, Math.floor(this.options.leaseMs / 3));
    this.timers.push(setInterval(() => this.onLeaseTick(), renewEvery));
    const probeEvery = this.catalog.config.router.probe_interval_ms;
    this.timers.push(setInterval(() => this.onProbeTick(), probeEvery));
    this.timers.push(setInterval(() => this.evaluate(), Math.min(EVALUATE_EVERY_MS, probeEvery)));
    this.onLeaseTick();
  }

  /** Stops probing, lets a running cycle end (bounded by the probe timeout), hands the lease over. */
  async onModuleDestroy(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.samples.stop();
    const released = await this.lease
      .release(Promise.allSettled([this.cycle, this.leaseTick, this.evaluating]))
      .catch((err: Error) => {
        this.logger.warn(`could not release the leader lease: ${err.message}`);
        return true;
      });
    if (!released)
      this.logger.warn('Redis unreachable or not answering at shutdown: the leader lease is left to expire');
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
      this.renewing.succeeded();
    } catch (err) {
      this.renewing.failed(err as Error);
    }
    const leader = this.lease.isLeader();
    if (leader === this.wasLeader) return;
    this.wasLeader = leader;
    if (!leader) {
      this.logger.warn('lost the leader lease: stopped probing and reading samples');
      await this.samples.stop();
      return;
    }
    this.logger.log('became leader: probing providers, reading samples and publishing routes');
    this.health.reset(this.view.current());
    this.passive.reset();
    this.probed = false;
    this.published = null;
    this.samples.start(() => this.evaluate());
    this.onProbeTick();
  }

  /** Rebuilds the table and publishes it if due; runs never overlap, a request during one reruns it. */
  private evaluate(): void {
    if (this.timers.length === 0 || !this.probed || !this.lease.isLeader()) return;
    if (this.evaluating) {
      this.evaluateAgain = true;
      return;
    }
    this.evaluating = this.publishSafely().finally(() => {
      this.evaluating = null;
      if (this.evaluateAgain) {
        this.evaluateAgain = false;
        this.evaluate();
      }
    });
  }

  private async publishSafely(): Promise<void> {
    try {
      await this.publishIfDue(Date.now());
    } catch (err) {
      this.publishing.failed(err as Error); // retried next cycle
    }
  }

  private async runCycle(): Promise<void> {
    await this.health.probeAll();
    this.probed = true;
    this.evaluate();
  }

  private async publishIfDue(now: number): Promise<void> {
    this.passive.tick(now);
    const draft = buildRouteTable(
      this.catalog,
      this.health.current(),
      0,
      new Date(now),
      this.passive.lookup(now),
    );
    const decision = publishDecision(
      this.published && { table: this.published, at: this.publishedAt },
      draft,
      now,
      {
        probeIntervalMs: this.catalog.config.router.probe_interval_ms,
        refreshMs: this.options.refreshMs,
        evaluateMs: EVALUATE_EVERY_MS,
      },
    );
    if (decision === null) return;
    const table =
      decision === 'new' || !this.published
        ? { ...draft, version: await this.store.nextVersion() }
        : this.published;
    // The lease may have lapsed while probes ran: a former leader must not overwrite the new one.
    if (!this.lease.isLeader()) return;
    await this.store.publish(table);
    this.publishing.succeeded();
    if (this.published && table !== this.published) this.logChanges(this.published, table);
    this.published = table;
    this.publishedAt = now;
  }

  private logChanges(before: RouteTable, after: RouteTable): void {
    for (const [model, candidates] of Object.entries(after.models)) {
      for (const c of candidates) {
        const was = before.models[model]?.find((p) => p.providerId === c.providerId);
        if (was && was.state !== c.state)
          this.logger.warn(`${c.providerId} / ${model}: ${was.state} -> ${c.state} (${c.reason})`);
      }
    }
  }
}
