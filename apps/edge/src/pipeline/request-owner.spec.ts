import { describe, expect, it } from '@jest/globals';
import { type KeyRecord } from '#libs/auth';
import { type RequestLogJob } from '#libs/queue';
import { type RequestRecord } from '../logs/request-record.js';
import { endRecord, type RequestEndServices, startRecord } from './request-end.js';
import { RequestOwner } from './request-owner.js';

const KEY: KeyRecord = { id: 'k', userId: 'u', group: 'g', status: 'active', expiresAt: null };
const PRICING = { input_per_million: 2, output_per_million: 4 } as never;

/** The end's three hands, each noting what it was given: the log jobs, the spans' records, the charges. */
function ends(clockMs = Date.UTC(2026, 0, 2)) {
  const jobs: RequestLogJob[] = [];
  const finished: RequestRecord[] = [];
  const charges: Array<{ requestId: string; cost: number }> = [];
  const edge: RequestEndServices = {
    quota: {
      now: () => clockMs,
      settle: (r: RequestRecord, cost: number) => charges.push({ requestId: r.requestId, cost }),
    } as never,
    telemetry: { requestFinished: (r: RequestRecord) => finished.push(r) } as never,
    logs: { enqueue: (job: RequestLogJob) => jobs.push(job) } as never,
  };
  return { edge, jobs, finished, charges };
}

/** A request admitted and answered with some usage, as a session's turn would be. */
function answered(record: RequestRecord, outputTokens: number): void {
  record.authenticated(KEY);
  record.targeted('m', true, PRICING);
  record.measured({ inputTokens: 1000, outputTokens } as never);
}

describe('the shared end', () => {
  it('prices the usage at the prices the request started on, then one log, one span set, one charge', () => {
    const h = ends();
    const record = startRecord(h.edge, 'req_a', '/v1/responses');
    expect(record.startedAt.getTime()).toBe(Date.UTC(2026, 0, 2));
    answered(record, 500);
    endRecord(h.edge, record, { status: 200, errorCode: null });
    endRecord(h.edge, record, { status: 500, errorCode: 'internal_error' });
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]).toMatchObject({ requestId: 'req_a', status: 200, endpoint: '/v1/responses' });
    expect(h.jobs[0]!.costNanos).toBeGreaterThan(0);
    expect(h.finished).toEqual([record]);
    expect(h.charges).toEqual([{ requestId: 'req_a', cost: h.jobs[0]!.costNanos }]);
  });

  it('a free request (no prices) logs at cost 0', () => {
    const h = ends();
    const record = startRecord(h.edge, 'req_c', '/v1/messages/count_tokens');
    record.authenticated(KEY);
    record.targeted('m');
    endRecord(h.edge, record, { status: 200, errorCode: null });
    expect(h.jobs.map((j) => j.costNanos)).toEqual([0]);
  });
});

describe('RequestOwner: a session or a job owns its requests as ModelRequest owns one', () => {
  it('a session of several requests: one log and one charge each, under its endpoint', () => {
    const h = ends();
    const session = new RequestOwner(h.edge, '/v1/responses');
    const turns = ['req_1', 'req_2', 'req_3'].map((id) => session.start(id));
    turns.forEach((t, i) => answered(t, 100 * (i + 1)));
    expect(session.openCount).toBe(3);
    for (const t of turns) session.end(t, { status: 200, errorCode: null });
    // A turn ended twice (its stream's end and the socket's close racing) still logs once.
    session.end(turns[0]!, { status: 200, errorCode: 'client_disconnected' });
    expect(h.jobs.map((j) => [j.requestId, j.endpoint, j.errorCode])).toEqual([
      ['req_1', '/v1/responses', null],
      ['req_2', '/v1/responses', null],
      ['req_3', '/v1/responses', null],
    ]);
    expect(h.charges.map((c) => c.requestId)).toEqual(['req_1', 'req_2', 'req_3']);
    expect(h.charges.map((c) => c.cost)).toEqual(h.jobs.map((j) => j.costNanos));
    expect(session.openCount).toBe(0);
  });

  it('the exchange ends: every request still open ends with its outcome, the ended ones are not touched', () => {
    const h = ends();
    const session = new RequestOwner(h.edge, '/v1/realtime');
    const done = session.start('req_done');
    const cut = session.start('req_cut');
    answered(done, 10);
    answered(cut, 20);
    session.end(done, { status: 200, errorCode: null });
    session.endAll({ status: 200, errorCode: 'client_disconnected' });
    session.endAll({ status: 503, errorCode: 'server_busy' });
    expect(h.jobs.map((j) => [j.requestId, j.errorCode])).toEqual([
      ['req_done', null],
      ['req_cut', 'client_disconnected'],
    ]);
    expect(h.charges.map((c) => c.requestId)).toEqual(['req_done', 'req_cut']);
    expect(() => session.start('req_late')).toThrow(/after its owner ended/);
  });

  it('a request it does not own cannot be ended through it', () => {
    const h = ends();
    const a = new RequestOwner(h.edge, '/v1/responses');
    const b = new RequestOwner(h.edge, '/v1/responses');
    const record = a.start('req_x');
    expect(() => b.end(record, { status: 200, errorCode: null })).toThrow(/not one of/);
    expect(h.jobs).toEqual([]);
    a.end(record, { status: 200, errorCode: null });
    expect(h.jobs).toHaveLength(1);
  });
});
