import { type GatewayConfig } from '#libs/config';
import { type RoutesStatus } from '../routing/routes.service.js';

/** What this edge can serve right now, as `/readyz` reports it. */
export interface Readiness {
  readonly ready: boolean;
  readonly redis: boolean;
  /** Keys: memory, then Redis, then Postgres; without Redis, memory then Postgres. */
  readonly keys: 'cache and postgres' | 'memory and postgres';
  readonly routes: RoutesStatus;
  readonly quota: 'enforced' | 'admitted unchecked' | 'refused';
  /** Logs go to the queue, or wait in memory and the spool until Redis is back. */
  readonly logs: 'queued' | 'held and spooled';
}

export interface ReadinessInputs {
  readonly redis: boolean;
  readonly logsQueued: boolean;
  readonly routes: RoutesStatus;
  readonly whenUnavailable: GatewayConfig['quota']['when_unavailable'];
}

/**
 * Of an edge that is not draining (that answers not ready at once). Not ready only when it cannot
 * serve a model request: while Redis is unreachable under `quota.when_unavailable: refuse` (each request would get 503
 * quota_unavailable, while an edge that still reaches Redis could serve it). Otherwise Redis is
 * reported, not required: keys come from memory and Postgres, routes from the last table or the
 * config, quota is admitted unchecked, logs are spooled.
 */
export function readiness(i: ReadinessInputs): Readiness {
  const quota = i.redis ? 'enforced' : i.whenUnavailable === 'refuse' ? 'refused' : 'admitted unchecked';
  return {
    ready: quota !== 'refused',
    redis: i.redis,
    keys: i.redis ? 'cache and postgres' : 'memory and postgres',
    routes: i.routes,
    quota,
    // A Redis that does not answer takes no log, whether or not the log queue has found out yet.
    logs: i.redis && i.logsQueued ? 'queued' : 'held and spooled',
  };
}
