import { Inject, Injectable } from '@nestjs/common';
import {
  type Attributes,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { Catalog, type CatalogSnapshot } from '#libs/config';
import { descriptorOf, type ResponseFacts, type StreamMeter, type WireFormat } from '#libs/providers';
import { type RequestLogJob } from '#libs/queue';
import { ATTR, genAiOperation, requestSpan, telemetry, traceparentOf } from '#libs/telemetry';
import { type RequestRecord } from '../logs/request-record.js';
import { type UpstreamAttempt } from '../logs/upstream-attempt.js';
import { type RequestPlan } from '../upstream/request-plan.js';
import { CATALOG } from '../tokens.js';
import { type CapturedContent, ContentCapture, contentAttributes } from './content/content-capture.js';
import { RequestMetrics } from './request-metrics.js';
import { parseAnswer } from './answer-body.js';

/**
 * The edge's request telemetry, read from the request's record at its one end
 * (`ModelRequest.end`): its attempts (as the failover returned them), its answer and its log job.
 * Metrics are a handful of `record()` calls on attribute objects built once per series; spans
 * (only while tracing) are written at the end from the record, so a request pays no span work at
 * all when tracing is off. What the record does not hold (the answer's facts, the failover span,
 * the captured content) is noted on it while the request runs, only while tracing or capturing.
 * Prompts and completions are kept only when content capture is on (`ContentCapture`); otherwise
 * its hooks are one null check.
 */
@Injectable()
export class EdgeTelemetry {
  private readonly tracing: boolean;
  private readonly metrics: RequestMetrics | null;
  /** Updated in place with each configuration version: the metrics read the same map. */
  private readonly providerNames = new Map<string, string>();
  private readonly content: ContentCapture | null;

  constructor(@Inject(CATALOG) catalog: Catalog) {
    const t = telemetry();
    this.tracing = t.tracing;
    this.content = t.captureContent ? new ContentCapture() : null;
    const name = (next: CatalogSnapshot): void => {
      for (const p of next.providers.values())
        this.providerNames.set(p.id, descriptorOf(p.type).genAiName(p));
    };
    name(catalog.snapshot());
    catalog.onChange(name);
    this.metrics = t.metrics.enabled ? new RequestMetrics(t.metrics, this.providerNames) : null;
  }

  /** The request goes upstream: its body, for content capture. */
  requestPlanned(record: RequestRecord, plan: RequestPlan): void {
    this.content?.requestPlanned(record, plan.api, plan.body);
  }

  /** A non-stream answer is relayed: its upstream body, parsed once for the span and the content. */
  responseReceived(record: RequestRecord, body: Buffer, wire: WireFormat | null): void {
    if (!this.tracing && this.content === null) return;
    const answer = parseAnswer(body);
    if (this.tracing) record.facts = answer === null || wire === null ? null : wire.facts(answer);
    this.content?.answered(record, answer === null || wire === null ? null : wire.outputMessages(answer));
  }

  /** A stream is relayed: its meter, which also keeps the stream's text while capturing content. */
  streamStarted(record: RequestRecord, meter: StreamMeter, wire: WireFormat): StreamMeter {
    return this.content === null ? meter : this.content.tapStream(record, meter, wire);
  }

  /** The answer that won was streamed and has ended: what its meter saw of it. Tracing only. */
  streamEnded(record: RequestRecord, meter: StreamMeter): void {
    if (this.tracing) record.facts = meter.facts();
  }

  /** Session-routed requests so far, per series (read at each metrics collection). */
  observeSticky(observe: (value: number, attributes: Attributes) => void): void {
    this.metrics?.observeSticky(observe);
  }

  /** The failover span of a request, so its attempts become its children. Tracing only. */
  failoverStarted(record: RequestRecord, span: Span): void {
    if (this.tracing) record.failoverSpan = span;
  }

  /** The request's one end: metrics, its spans, and its traceparent onto the log job. */
  requestFinished(record: RequestRecord, job: RequestLogJob): void {
    if (this.metrics !== null) this.attemptMetrics(record);
    if (this.metrics !== null && job.model !== null) this.metrics.requestFinished(job, record.sessionRouted);
    const content = this.content?.finish(record, job) ?? null;
    if (this.tracing) this.finishTrace(record, job, content);
  }

  /** Each attempt sent upstream: its duration, by how it ended. */
  private attemptMetrics(record: RequestRecord): void {
    for (const a of record.attempts) {
      if (a.ended === null) continue;
      this.metrics!.attemptEnded(
        record.endpoint,
        a.upstreamModel,
        a.providerId,
        a.ended,
        a.endedMs - a.startedMs,
      );
    }
  }

  private finishTrace(record: RequestRecord, job: RequestLogJob, content: CapturedContent | null): void {
    const server = requestSpan(record.requestId);
    const operation = genAiOperation(job.endpoint);
    const parent = record.failoverSpan ?? server;
    const parentCtx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : context.active();
    const t0 = record.startedAt.getTime();
    const attempts = record.attempts.filter(wasSent);
    attempts.forEach((a, i) => {
      const last = i === attempts.length - 1;
      const ended = a.ended!;
      const winner = last && ended === 'ok';
      const providerName = this.providerNames.get(a.providerId) ?? a.providerId;
      const span = telemetry().tracer.startSpan(
        `${operation} ${a.upstreamModel}`.trim(),
        {
          kind: SpanKind.CLIENT,
          startTime: t0 + a.startedMs,
          attributes: {
            [ATTR.operation]: operation,
            [ATTR.provider]: providerName,
            'gen_ai.system': providerName,
            [ATTR.providerId]: a.providerId,
            [ATTR.requestModel]: a.upstreamModel,
            [ATTR.httpStatus]: a.status,
            'gateway.attempt': i + 1,
            ...(ended === 'ok' ? {} : { [ATTR.errorType]: ended }),
            ...(winner ? responseAttributes(job, record.facts) : {}),
            // The attempt whose answer the client got, a stream cut short included.
            ...(last && content?.answered ? contentAttributes(content) : {}),
          },
        },
        parentCtx,
      );
      if (ended !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: ended });
      span.end(t0 + a.endedMs);
    });
    if (!server) return;
    const providerName = job.providerId ? (this.providerNames.get(job.providerId) ?? job.providerId) : null;
    server.setAttributes({
      [ATTR.operation]: operation,
      [ATTR.endpoint]: job.endpoint,
      [ATTR.stream]: job.stream,
      ...(job.model ? { [ATTR.requestModel]: job.model } : {}),
      // A fallback answered: the request's model is the one that did, this the one it was for.
      ...(job.fallbackFrom ? { 'gateway.fallback_from': job.fallbackFrom } : {}),
      ...(providerName ? { [ATTR.provider]: providerName, 'gen_ai.system': providerName } : {}),
      ...(job.providerId ? { [ATTR.providerId]: job.providerId } : {}),
      ...(job.errorCode ? { [ATTR.errorType]: job.errorCode } : {}),
      ...responseAttributes(job, record.facts),
    });
    if (job.status >= 500)
      server.setStatus({ code: SpanStatusCode.ERROR, message: job.errorCode ?? undefined });
    job.traceparent = traceparentOf(server);
  }
}

/** Sent upstream and settled: a `limited` attempt never was. */
const wasSent = (a: UpstreamAttempt): boolean => a.ended !== null;

function responseAttributes(job: RequestLogJob, facts: ResponseFacts | null): Attributes {
  return {
    ...(job.usage
      ? { [ATTR.inputTokens]: job.usage.inputTokens, [ATTR.outputTokens]: job.usage.outputTokens }
      : {}),
    ...(facts?.model ? { [ATTR.responseModel]: facts.model } : {}),
    ...(facts && facts.finishReasons.length > 0 ? { [ATTR.finishReasons]: facts.finishReasons } : {}),
  };
}
