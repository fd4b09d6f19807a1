import { appliedPrices, costOf } from '#libs/quota';
import { type LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { type QuotaGate } from '../quota/quota-gate.service.js';
import { type EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';

/** How a stream handed to the client ended: whole, broken off upstream, or the client hung up. */
export type StreamEnd = 'ok' | 'stream_error' | 'aborted';

/** How a request ended: what the client was told, and for a relayed stream, how it ended. */
export interface Outcome {
  readonly status: number;
  /** The log's error code: null for a success. */
  readonly errorCode: string | null;
  /** Only for a stream the relay ended. */
  readonly stream?: StreamEnd;
}

/** What a request's start and end use: the quota gate (its clock, the charge), the telemetry, the log. */
export interface RequestEndServices {
  readonly quota: QuotaGate;
  readonly telemetry: EdgeTelemetry;
  readonly logs: LogShipper;
}

/**
 * A request's record, started on the quota gate's clock (the start places its charge in its
 * budget windows). Every endpoint kind starts its requests here: a JSON request its one, a
 * WebSocket session or a job each one it carries (`RequestOwner`).
 */
export function startRecord(edge: RequestEndServices, requestId: string, endpoint: string): RequestRecord {
  return new RequestRecord(requestId, endpoint, new Date(edge.quota.now()));
}

/**
 * Who starts and ends a request's record: the request itself (a JSON request, `ownRecord`) or the
 * exchange carrying it (a WebSocket session's `RequestOwner`), so the pipeline that serves the
 * request never decides whose it is.
 */
export interface RecordKeeper {
  start(requestId: string): RequestRecord;
  end(record: RequestRecord, outcome: Outcome): void;
}

/** A request that is its own exchange: started and ended here. */
export function ownRecord(edge: RequestEndServices, endpoint: string): RecordKeeper {
  return {
    start: (requestId) => startRecord(edge, requestId, endpoint),
    end: (record, outcome) => endRecord(edge, record, outcome),
  };
}

/**
 * The one end every client request shares, whatever its endpoint kind: its usage priced at the
 * prices it started on, then exactly one log job, its telemetry (metrics, spans) and its charge.
 * A record ends once: a second call finds it finished and does nothing. A free request (a token
 * count: no prices, no usage) logs at cost 0 and its charge is nothing to settle.
 */
export function endRecord(edge: RequestEndServices, record: RequestRecord, outcome: Outcome): void {
  if (record.isFinished) return;
  const pricing = record.pricing;
  if (record.usage && pricing) record.priced(appliedPrices(pricing, record.usage.inputTokens));
  const cost = record.usage && record.prices ? costOf(record.usage, record.prices) : 0;
  const job = record.finish(outcome.status, outcome.errorCode, cost)!;
  edge.telemetry.requestFinished(record, job);
  edge.logs.enqueue(job);
  edge.quota.settle(record, cost);
}
