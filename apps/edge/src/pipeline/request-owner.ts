import { type RequestRecord } from '../logs/request-record.js';
import { endRecord, type Outcome, type RequestEndServices, startRecord } from './request-end.js';

/**
 * The owner of the requests an exchange carries when it carries more than one: a WebSocket
 * session (each `response.create` on the connection is one request) or a job (each line). It is
 * to them what a `ModelRequest` is to its one request: it starts each request's record, is the
 * one that ends it, through the same start and end (`request-end.ts`), and when the exchange
 * itself ends (the socket closes, the edge shuts down, the job is cancelled) it ends every
 * request still open, so none is left unlogged or uncharged, and none is logged or charged twice.
 */
export class RequestOwner {
  private readonly open = new Set<RequestRecord>();
  private closed = false;

  constructor(
    private readonly edge: RequestEndServices,
    /** The endpoint its requests are logged under (the session's or job's route). */
    readonly endpoint: string,
  ) {}

  /** Requests started and not yet ended. */
  get openCount(): number {
    return this.open.size;
  }

  /** A new request of the exchange, under its own request id. Refused once the exchange ended. */
  start(requestId: string): RequestRecord {
    if (this.closed) throw new Error(`request ${requestId} started after its owner ended`);
    const record = startRecord(this.edge, requestId, this.endpoint);
    this.open.add(record);
    return record;
  }

  /** One request's end: its log, telemetry and charge, once. A record it does not own is a bug. */
  end(record: RequestRecord, outcome: Outcome): void {
    if (!this.open.delete(record)) {
      if (record.isFinished) return;
      throw new Error(`request ${record.requestId} is not one of ${this.endpoint}'s`);
    }
    endRecord(this.edge, record, outcome);
  }

  /** The exchange ended: every request still open ends with `outcome`, and no new one starts. */
  endAll(outcome: Outcome): void {
    this.closed = true;
    for (const record of this.open) endRecord(this.edge, record, outcome);
    this.open.clear();
  }
}
