import { describe, expect, it } from '@jest/globals';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { CLIENT_APIS } from '#libs/providers';
import { type RouteCandidate, type RouteSample } from '#libs/routing';
import { RequestRecord } from '../logs/request-record.js';
import { type RoutesService } from '../routing/routes.service.js';
import { type SampleShipper } from '../routing/sample-shipper.service.js';
import { AttemptSender } from './attempt-sender.js';
import { AttemptSettler } from './attempt-settler.js';
import { type BufferedResponse } from './buffered-dispatch.js';
import { FailoverService } from './failover.service.js';
import { type ProviderLimiter } from './provider-limiter.js';
import { RequestPlan } from './request-plan.js';
import { type UpstreamClient } from './upstream.client.js';

const config = parseConfig({
  providers: ['p1', 'p2'].map((id) => ({
    id,
    type: 'openai',
    base_url: 'http://127.0.0.1:1/v1',
    models: ['m'],
  })),
  models: [{ id: 'm', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { g: ['m'] },
});
const catalog = new Catalog(config, {});

const ANSWER = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

function response(status: number, body: string): BufferedResponse {
  const dropped = status === 429 || status >= 500;
  return dropped
    ? { statusCode: status, headers: {}, body: Buffer.alloc(0), drained: Promise.resolve() }
    : { statusCode: status, headers: {}, body: Buffer.from(body) };
}

/** A failover whose providers answer in turn with `statuses`, and what the router was told. */
function failoverAnswering(statuses: readonly number[]) {
  const samples: RouteSample[] = [];
  const ended: Array<[string, boolean | null]> = [];
  let call = 0;
  const candidates: RouteCandidate[] = ['p1', 'p2'].map(
    (providerId) => ({ providerId, upstreamModel: 'm', state: 'up' }) as RouteCandidate,
  );
  const routes = {
    sticky: () => false,
    candidates: () => candidates,
    attemptStarted: () => undefined,
    attemptEnded: (id: string, failure: boolean | null) => ended.push([id, failure]),
  } as unknown as RoutesService;
  const upstream = {
    postBuffered: () => {
      const status = statuses[call++]!;
      return Promise.resolve(response(status, status === 200 ? ANSWER : '{"error":{"message":"down"}}'));
    },
  } as unknown as UpstreamClient;
  const limiter = { acquire: () => null, release: () => undefined } as unknown as ProviderLimiter;
  const settler = new AttemptSettler(
    routes,
    { push: (s: RouteSample) => samples.push(s) } as unknown as SampleShipper,
    limiter,
  );
  const failover = new FailoverService(
    routes,
    new AttemptSender(upstream, settler),
    limiter,
    catalog,
    config,
  );
  return { failover, samples, ended };
}

function request(): { record: RequestRecord; plan: RequestPlan } {
  const record = new RequestRecord('req', '/v1/chat/completions');
  record.targeted('m');
  const body = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
  const plan = new RequestPlan(
    CLIENT_APIS.chat,
    body,
    CLIENT_APIS.chat.target(body, { params: {}, query: {} }),
    {},
  );
  return { record, plan };
}

describe('FailoverService returns its attempts as values', () => {
  it('a 503 then an answer: both attempts in order, each settled, and the record left as it was', async () => {
    const { failover, samples, ended } = failoverAnswering([503, 200]);
    const { record, plan } = request();
    const run = await failover.call(plan, record);
    expect(run.error).toBeNull();
    expect(run.answer).toMatchObject({ providerId: 'p2', body: expect.any(Buffer) });
    expect(run.answer!.attempt).toBe(run.attempts[1]);
    expect(run.attempts).toMatchObject([
      { providerId: 'p1', model: 'm', status: 503, outcome: 'http_error', ended: 'http_error' },
      { providerId: 'p2', model: 'm', status: 200, outcome: 'ok', ended: 'ok' },
    ]);
    expect(samples.map((s) => [s.providerId, s.outcome])).toEqual([
      ['p1', 'http_error'],
      ['p2', 'ok'],
    ]);
    expect(ended).toEqual([
      ['p1', true],
      ['p2', false],
    ]);
    // The lifecycle copies the run onto the record; the failover wrote nothing of it.
    expect(record.attempts).toEqual([]);
    expect(record.providerId).toBeNull();
  });

  it('every provider failing: the error as a value, with every attempt', async () => {
    const { failover } = failoverAnswering([502, 503]);
    const { record, plan } = request();
    const run = await failover.call(plan, record);
    expect(run.answer).toBeNull();
    expect(run.error).toMatchObject({ status: 502 });
    expect(run.attempts.map((a) => [a.providerId, a.status])).toEqual([
      ['p1', 502],
      ['p2', 503],
    ]);
    expect(record.attempts).toEqual([]);
  });
});
