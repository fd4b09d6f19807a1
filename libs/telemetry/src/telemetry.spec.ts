import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, SpanKind, trace } from '@opentelemetry/api';
import {
  ATTR,
  exportedPrometheusNames,
  INSTRUMENTS,
  type InstrumentSpec,
  prometheusSeries,
} from './instruments.js';
import { createLogger, PinoNestLogger, REQUEST_ID_KEY } from '#libs/logging';
import { prometheusText } from './prometheus.js';
import { telemetry } from './sdk.js';
import { installTestTelemetry, pointsOf, type TestTelemetry } from './testing.js';
import { linksFor, MAX_LINKS, parentFor, parseTraceparent, traceparentOf } from './trace-context.js';

let t: TestTelemetry;
beforeAll(async () => {
  t = await installTestTelemetry();
});
afterAll(() => t.uninstall());

describe('metrics', () => {
  it('histograms keep count, sum and attributes; counters add up', async () => {
    const m = telemetry().metrics;
    const attrs = { [ATTR.requestModel]: 'spec-model', [ATTR.providerId]: 'p0' };
    m.histogram('serverRequestDuration').record(0.5, attrs);
    m.histogram('serverRequestDuration').record(1.5, attrs);
    m.counter('upstreamErrors').add(2, attrs);
    const rm = await t.collect();
    const [hist] = pointsOf(rm, 'gen_ai.server.request.duration').filter(
      (p) => p.attributes[ATTR.requestModel] === 'spec-model',
    );
    expect(hist?.value).toMatchObject({ count: 2, sum: 2 });
    const [errors] = pointsOf(rm, 'gateway.upstream.errors');
    expect(errors?.value).toBe(2);
  });

  it('observed instruments combine their sources: counters add, gauges keep the highest', async () => {
    const m = telemetry().metrics;
    const stopA = m.observe('keyCacheLookups', (o) => o(3, { [ATTR.cacheTier]: 'memory' }));
    const stopB = m.observe('keyCacheLookups', (o) => o(4, { [ATTR.cacheTier]: 'memory' }));
    const stopC = m.observe('queueLag', (o) => o(2, { [ATTR.queue]: 'q' }));
    const stopD = m.observe('queueLag', (o) => o(7, { [ATTR.queue]: 'q' }));
    let failing = 0;
    const stopE = m.observe('queueDepth', () => {
      failing++;
      throw new Error('redis down');
    });
    const rm = await t.collect();
    expect(pointsOf(rm, 'gateway.edge.key_cache.lookups')[0]?.value).toBe(7);
    expect(pointsOf(rm, 'gateway.queue.lag')[0]?.value).toBe(7);
    expect(failing).toBe(1);
    [stopA, stopB, stopC, stopD, stopE].forEach((stop) => stop());
    await t.collect();
    expect(failing).toBe(1);
  });

  it('the Prometheus names we declare are the ones the serializer writes, for every instrument', async () => {
    const m = telemetry().metrics;
    const stops: Array<() => void> = [];
    for (const [key, spec] of Object.entries(INSTRUMENTS) as Array<
      [keyof typeof INSTRUMENTS, InstrumentSpec]
    >) {
      if (spec.kind === 'histogram') m.histogram(key as 'batchSize').record(1, {});
      else if (
        key === 'keyCacheLookups' ||
        key === 'stickyRequests' ||
        key === 'websocketBytes' ||
        spec.kind === 'gauge'
      )
        stops.push(m.observe(key as 'queueLag', (o) => o(1, {})));
      else m.counter(key as 'failovers').add(1, {});
    }
    const text = await prometheusText();
    stops.forEach((stop) => stop());
    const written = new Set(
      text
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
    );
    for (const spec of Object.values(INSTRUMENTS) as InstrumentSpec[]) {
      for (const series of prometheusSeries(spec)) expect(written).toContain(series);
    }
    expect(exportedPrometheusNames()).toContain('gen_ai_client_token_usage_bucket');
    expect(exportedPrometheusNames()).toContain('gateway_upstream_failovers_total');
  });
});

describe('trace context across the queue', () => {
  it('a span context survives traceparent and back', () => {
    const span = telemetry().tracer.startSpan('request', { kind: SpanKind.SERVER });
    const tp = traceparentOf(span)!;
    expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const sc = parseTraceparent(tp)!;
    expect(sc).toEqual({
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      traceFlags: 1,
      isRemote: true,
    });
    const child = telemetry().tracer.startSpan('batch', {}, parentFor([tp]));
    expect(child.spanContext().traceId).toBe(span.spanContext().traceId);
    child.end();
    span.end();
    const ended = t.spans.getFinishedSpans().find((s) => s.name === 'batch')!;
    expect(ended.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it('many logs: no parent, one link per distinct valid context, bounded', () => {
    const tps = Array.from(
      { length: 200 },
      (_, i) => `00-${'a'.repeat(28)}${i.toString(16).padStart(4, '0')}-${'b'.repeat(16)}-01`,
    );
    expect(trace.getSpan(parentFor(tps))).toBeUndefined();
    const links = linksFor([...tps, undefined, 'garbage']);
    expect(links.length).toBe(MAX_LINKS);
    expect(linksFor([tps[0], tps[0], 'garbage', undefined])).toHaveLength(1);
  });

  it('rejects malformed and all-zero ids', () => {
    expect(parseTraceparent(`00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`)).toBeNull();
    expect(parseTraceparent('01-abc')).toBeNull();
    expect(parseTraceparent(42)).toBeNull();
  });
});

describe('logs', () => {
  function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    return { lines, stream };
  }

  it('JSON lines with trace id, span id and request id inside a request span', () => {
    const { lines, stream } = capture();
    const log = createLogger({ app: 'edge', level: 'info', destination: stream });
    const span = telemetry().tracer.startSpan('req');
    context.with(trace.setSpan(context.active(), span).setValue(REQUEST_ID_KEY, 'req_1'), () =>
      log.info('inside'),
    );
    log.info('outside');
    span.end();
    expect(lines[0]).toMatchObject({
      level: 'info',
      app: 'edge',
      msg: 'inside',
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
      request_id: 'req_1',
    });
    expect(lines[1]).not.toHaveProperty('trace_id');
    expect(typeof lines[1]!.time).toBe('string');
  });

  it('credentials and content are redacted', () => {
    const { lines, stream } = capture();
    const log = createLogger({ app: 'edge', level: 'info', destination: stream });
    log.info(
      {
        req: { headers: { authorization: 'Bearer sk-secret', 'x-api-key': 'sk-other', accept: '*/*' } },
        body: { messages: [{ role: 'user', content: 'private' }], model: 'm' },
      },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('sk-secret');
    expect(text).not.toContain('sk-other');
    expect(text).not.toContain('private');
    expect(lines[0]).toMatchObject({ req: { headers: { accept: '*/*' } }, body: { model: 'm' } });
  });

  it("Nest's logger calls become lines with their context, errors with their stack", () => {
    const { lines, stream } = capture();
    const nest = new PinoNestLogger(createLogger({ app: 'worker', level: 'debug', destination: stream }));
    nest.log('started', 'Bootstrap');
    nest.error('write failed', 'Error: x\n    at y', 'Writer');
    nest.warn({ jobId: 'j1', msg: 'slow' }, 'Processor');
    nest.verbose('hidden at debug level');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', msg: 'started', context: 'Bootstrap' }),
      expect.objectContaining({
        level: 'error',
        msg: 'write failed',
        context: 'Writer',
        stack: 'Error: x\n    at y',
      }),
      expect.objectContaining({ level: 'warn', msg: 'slow', jobId: 'j1', context: 'Processor' }),
    ]);
  });
});
