import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { type StreamMarker } from '#libs/queue';
import { Periodic } from '#libs/runtime';
import { QuotaReconciler } from '../quota/quota-reconciler.service.js';
import { RequestLogWriter } from '../request-logs/request-log.writer.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { cutStreamLog } from './cut-stream-log.js';
import { type EdgeInstance, EdgeStreams } from './edge-streams.store.js';

/**
 * No stream outlives `routing.total_timeout_ms` (the edge aborts it), and its marker goes as soon
 * as its log is in the queue: a marker of a live edge older than that plus this margin lost its
 * clear (Redis refused the HDEL), or its log was held back by an outage long enough to be spooled.
 */
export const STALE_MARGIN_MS = 5 * 60_000;

export interface SweepSummary {
  readonly edges: number;
  /** Cut streams written (a row and a charge, unless the edge's own log got there first). */
  readonly charged: number;
}

/**
 * Charges the streams cut by an edge's death (docs/quota.md): every `cut_streams.sweep_interval_ms`
 * the markers of edges whose heartbeat expired, and markers no live stream can still need, become
 * estimated log rows and charges through the request-log writer, then those accounts' Redis copies
 * are rebuilt from Postgres so the balance the edges check moves at once. Writes skip request ids
 * already stored, so worker replicas may sweep together and an edge's own late log (its spool
 * replayed) never adds a second row or charge.
 */
@Injectable()
export class CutStreamSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CutStreamSweeper.name);
  private readonly staleAfterMs: number;
  private readonly periodic = new Periodic(
    () => this.sweep(),
    (err) => this.logger.warn(`cut-stream sweep failed (retried next interval): ${err.message}`),
  );

  constructor(
    private readonly edges: EdgeStreams,
    private readonly writer: RequestLogWriter,
    private readonly quotas: QuotaReconciler,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    // Live: a cut stream is charged at the prices of the version serving when it is swept.
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {
    this.staleAfterMs = config.routing.total_timeout_ms + STALE_MARGIN_MS;
  }

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.cut_streams.sweep_interval_ms);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  async sweep(nowMs = Date.now()): Promise<SweepSummary> {
    const instances = await this.edges.instances();
    const accounts = new Set<string>();
    let charged = 0;
    for (const edge of instances) charged += await this.sweepEdge(edge, nowMs, accounts);
    if (accounts.size > 0) await this.quotas.reconcileUsers([...accounts]);
    if (charged > 0) this.logger.log(`charged ${charged} streams cut by a dead edge (estimated)`);
    return { edges: instances.length, charged };
  }

  private async sweepEdge(edge: EdgeInstance, nowMs: number, accounts: Set<string>): Promise<number> {
    const alive = await this.edges.alive(edge.instance);
    // A dead edge's streams ran at most until its last heartbeat plus the TTL; the last heartbeat
    // is the bound that is known to have happened.
    const seenUntil = alive ? nowMs : edge.lastSeenMs;
    const due = (m: StreamMarker): boolean => !alive || nowMs - Date.parse(m.startedAt) > this.staleAfterMs;
    let charged = 0;
    for await (const page of this.edges.markers(edge.instance)) {
      const jobs = page.markers
        .filter(due)
        .map((m) => cutStreamLog(m, seenUntil, this.catalog.models.get(m.model)?.pricing));
      const outcomes = jobs.length > 0 ? await this.writer.writeBatch(jobs) : [];
      const written = jobs.filter((_, i) => outcomes[i] === null);
      for (const account of await this.writer.accountsOf(written)) accounts.add(account);
      if (page.unreadable.length > 0)
        this.logger.error(`${edge.instance}: ${page.unreadable.length} unreadable stream markers dropped`);
      await this.edges.forget(edge.instance, [...written.map((j) => j.requestId), ...page.unreadable]);
      charged += written.length;
    }
    if (!alive) await this.edges.dropIfGone(edge.instance);
    return charged;
  }
}
