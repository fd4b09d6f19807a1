import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type Catalog, type GatewayConfig, type RoutingStrategy } from '#libs/config';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import {
  buildRouteTable,
  type RouteCandidate,
  type RouteTable,
  selectCandidates,
  type SelectOptions,
} from '#libs/routing';
import { RouteTableWatcher } from '#libs/routing-stores';
import { CATALOG, CONFIG, REDIS, REDIS_KEYS } from '../tokens.js';
import { LocalBreaker } from './local-breaker.js';

export interface RoutesStatus {
  readonly source: 'router' | 'config';
  readonly version: number;
  readonly ageMs: number | null;
  /** The router has not published for `routing.stale_after_ms`: routing on the last view and the local breaker. */
  readonly stale: boolean;
}

/** The longest an edge's start waits for the router's table (it routes on the config until then). */
const FIRST_TABLE_WAIT_MS = 1_000;

/**
 * The edge's in-memory view of the router's ranked routes, kept fresh by pub/sub. Until the router
 * has published once, the edge routes on the config alone (every enabled provider assumed up), so
 * an edge never refuses traffic just because it started first.
 *
 * It also holds what this edge knows by itself: its requests in flight per provider (for
 * `least_inflight`) and its local breaker, which acts before the router reacts and keeps routing
 * sane if the router is gone.
 */
@Injectable()
export class RoutesService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RoutesService.name);
  private readonly watcher: RouteTableWatcher;
  /** Routes on the configuration alone: until the router publishes, and for models it has not yet. */
  private bootstrap: RouteTable;
  private readonly strategies = new Map<string, RoutingStrategy>();
  /** Models whose sessions stick to a provider (`sticky_sessions`, the model's or routing's). */
  private readonly stickyModels = new Set<string>();
  private readonly inflightByProvider = new Map<string, number>();
  readonly breaker: LocalBreaker;
  private readonly staleAfterMs: number;
  /** Built once: selectCandidates reads these per request, so no closure is allocated per request. */
  private readonly inflight = (providerId: string): number => this.inflightByProvider.get(providerId) ?? 0;
  private readonly locallyOpen = (providerId: string): boolean => this.breaker.isOpen(providerId, Date.now());
  private readonly selectOptions: Map<RoutingStrategy, SelectOptions>;

  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(REDIS_KEYS) keys: RedisKeys,
    @Inject(CATALOG) catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.watcher = new RouteTableWatcher(redis, keys, this.logger);
    this.bootstrap = buildRouteTable(catalog, new Map(), 0, new Date());
    const r = config.routing;
    this.breaker = new LocalBreaker({
      failures: r.local_breaker_failures,
      cooldownMs: r.local_breaker_cooldown_ms,
    });
    this.staleAfterMs = r.stale_after_ms;
    const modelSettings = (models: GatewayConfig['models']): void => {
      this.strategies.clear();
      this.stickyModels.clear();
      for (const m of models) {
        this.strategies.set(m.id, m.strategy);
        if (m.sticky_sessions ?? r.sticky_sessions) this.stickyModels.add(m.id);
      }
    };
    modelSettings(config.models);
    // A new configuration version: its models route on it until the router's table has them.
    catalog.onChange((next) => {
      this.bootstrap = buildRouteTable(next, new Map(), 0, new Date());
      modelSettings(next.config.models);
    });
    this.selectOptions = new Map(
      (['priority', 'latency', 'least_inflight'] as const).map((strategy) => [
        strategy,
        {
          strategy,
          inflight: this.inflight,
          locallyOpen: this.locallyOpen,
          halfOpenTrialFraction: r.half_open_trial_fraction,
        },
      ]),
    );
  }

  /**
   * Waits briefly for the router's table, never for Redis: the watcher's start ends at the first
   * connection error, but a Redis that accepts connections and does not answer (hung, or behind a
   * proxy whose backend is gone) raises none, and one that drops packets raises its error after
   * ioredis's 10 s connect timeout. The table comes once Redis answers.
   */
  async onModuleInit(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_TABLE_WAIT_MS)));
    await Promise.race([this.watcher.start(), waited]);
    clearTimeout(timer);
    if (!this.watcher.current())
      this.logger.warn('no route table published yet: routing on config until the router publishes');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.watcher.stop();
  }

  table(): RouteTable {
    return this.watcher.current() ?? this.bootstrap;
  }

  /**
   * Candidates to try, in order, by the model's strategy; with a session (the hash of an agent
   * session) on a sticky model, the session's home provider first (rendezvous hashing).
   */
  candidates(model: string, session: number | null = null): RouteCandidate[] {
    const strategy = this.strategies.get(model) ?? 'priority';
    const published = this.table();
    const table = published.models[model] === undefined ? this.bootstrap : published;
    const sticky = session !== null && this.stickyModels.has(model) ? session : null;
    return selectCandidates(table, model, this.selectOptions.get(strategy), sticky);
  }

  /** Whether a session's requests to the model go to its home provider first. */
  sticky(model: string): boolean {
    return this.stickyModels.has(model);
  }

  /** An attempt at the provider starts (counts in flight; may be the breaker's half-open trial). */
  attemptStarted(providerId: string): void {
    this.inflightByProvider.set(providerId, this.inflight(providerId) + 1);
    this.breaker.onAttempt(providerId, Date.now());
  }

  /** The attempt ended; `failure` as isProviderFailure judges it, null when it says nothing (client gone). */
  attemptEnded(providerId: string, failure: boolean | null): void {
    this.inflightByProvider.set(providerId, this.inflight(providerId) - 1);
    if (failure !== null) this.breaker.record(providerId, failure, Date.now());
    else this.breaker.release(providerId);
  }

  /** For the health endpoint: where the view comes from, how old it is, whether it is stale. */
  status(): RoutesStatus {
    const current = this.watcher.current();
    if (!current) return { source: 'config', version: 0, ageMs: null, stale: false };
    const ageMs = Date.now() - this.watcher.lastUpdate();
    return { source: 'router', version: current.version, ageMs, stale: ageMs > this.staleAfterMs };
  }

  /** Local breaker and in-flight counts, for the health endpoint. */
  localView(): { breaker: ReturnType<LocalBreaker['snapshot']>; inflight: Record<string, number> } {
    return {
      breaker: this.breaker.snapshot(Date.now()),
      inflight: Object.fromEntries(this.inflightByProvider),
    };
  }
}
