import { type Attempt } from '#libs/queue';
import { type SampleOutcome } from '#libs/routing';

/**
 * One upstream attempt of a request, as the failover made it and returns it (a value: the
 * request's lifecycle copies the list onto its record, which logs it and which the telemetry
 * reads). Times are on the request's clock (`RequestRecord.elapsedMs`). Written by the failover
 * while the attempt runs, and settled once (`AttemptSettler`): by the failover, or for a stream
 * handed to the client, by the request's end.
 */
export interface UpstreamAttempt {
  readonly providerId: string;
  /** The model it was for: a fallback's, once the request fell back. */
  readonly model: string;
  readonly upstreamModel: string;
  /** What translating for it carried or dropped (the prepared request's own list). */
  readonly adjustments: readonly string[];
  readonly startedMs: number;
  /** It holds a slot of its provider's limits, freed when it settles. */
  readonly leased: boolean;
  /** The log's latency: until its answer (a stream's headers) or its failure. */
  latencyMs: number;
  /** HTTP status of its answer, 0 when none came. */
  status: number;
  /** The log's outcome (`limited`: refused by the provider's limits here, never sent). */
  outcome: Attempt['outcome'];
  /** Why it failed, in the provider's words (bounded and escaped). */
  reason: string | undefined;
  /** How it ended for the router and the metrics; null until settled (and for ever when limited). */
  ended: SampleOutcome | 'aborted' | null;
  /** When it settled; -1 until then. */
  endedMs: number;
}

/** An attempt that starts now (`startedMs`), or that the provider's limits refused (`leased` false). */
export function newAttempt(
  providerId: string,
  model: string,
  upstreamModel: string,
  adjustments: readonly string[],
  startedMs: number,
  leased: boolean,
): UpstreamAttempt {
  return {
    providerId,
    model,
    upstreamModel,
    adjustments,
    startedMs,
    leased,
    latencyMs: 0,
    status: 0,
    outcome: 'ok',
    reason: undefined,
    ended: null,
    endedMs: -1,
  };
}

/** The attempt's answer (or failure) came at `nowMs`: what the log says of it. */
export function closeAttempt(
  a: UpstreamAttempt,
  nowMs: number,
  status: number,
  outcome: Attempt['outcome'],
  reason?: string,
): void {
  a.latencyMs = Math.round((nowMs - a.startedMs) * 1000) / 1000;
  a.status = status;
  a.outcome = outcome;
  a.reason = reason;
}

/** The attempt as the log job has it; `withModel` on a request that fell back (every attempt names its model). */
export function loggedAttempt(a: UpstreamAttempt, withModel: boolean): Attempt {
  const logged: Attempt = {
    providerId: a.providerId,
    status: a.status,
    outcome: a.outcome,
    latencyMs: a.latencyMs,
  };
  if (a.reason !== undefined) logged.reason = a.reason;
  if (withModel) logged.model = a.model;
  return logged;
}
