import { Inject, Injectable } from '@nestjs/common';
import { Catalog, type RoutingStrategy } from '#libs/config';
import { type BreakerState, type RouteCandidate, type StatsSnapshot } from '#libs/routing';
import { PassiveHealth } from '../samples/passive-health.service.js';
import { CATALOG } from '../tokens.js';
import { RoutePublisher } from './route-publisher.service.js';

/** The leader's live figures behind a candidate's state. */
export interface CandidateDetail {
  readonly breaker: BreakerState;
  readonly stats: StatsSnapshot;
}

export interface RouteCandidateReport extends RouteCandidate {
  /** Present on the leader once samples arrived for this provider and model; followers only have the table. */
  readonly detail?: CandidateDetail;
}

export interface RoutesResponse {
  readonly version: number | null;
  readonly generatedAt: string | null;
  /** Whether this replica holds the leader lease (the one probing and publishing). */
  readonly leader: boolean;
  /** Model ID -> how edges order its candidates. */
  readonly strategies: Readonly<Record<string, RoutingStrategy>>;
  /** Model ID -> candidates in rank order, each with its state and the reason for it. */
  readonly models: Readonly<Record<string, readonly RouteCandidateReport[]>>;
}

/** GET /routes: the published table, with the leader's breaker and stats figures beside it. */
@Injectable()
export class RoutesReport {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly publisher: RoutePublisher,
    private readonly passive: PassiveHealth,
  ) {}

  build(now = Date.now()): RoutesResponse {
    const { leader, table } = this.publisher.snapshot();
    const models = Object.fromEntries(
      Object.entries(table?.models ?? {}).map(([model, list]) => [
        model,
        list.map((c): RouteCandidateReport => {
          const detail = leader ? this.passive.get(c.providerId, model, now) : undefined;
          return detail ? { ...c, detail } : c;
        }),
      ]),
    );
    return {
      version: table?.version ?? null,
      generatedAt: table?.generatedAt ?? null,
      leader,
      strategies: Object.fromEntries(this.catalog.config.models.map((m) => [m.id, m.strategy])),
      models,
    };
  }
}
