import { type Job } from 'bullmq';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { ATTR, linksFor, parentFor, telemetry, withSpan } from '#libs/telemetry';

/**
 * Spans and metrics of the worker's two steps, wrapped around the processor's calls.
 *
 * The edge ships one job per flush, many requests' logs in it, and the MicroBatcher mixes logs of
 * several jobs in one transaction: so neither a job nor a batch has one parent request. Each log
 * carries its request's traceparent; the job span (CONSUMER) and the batch span link to every
 * log's request span, and take it as parent when they hold exactly one log (the usual case at
 * low traffic), which makes edge request -> worker job -> batch -> Postgres one trace.
 */

const OUTCOME_OK = { [ATTR.outcome]: 'ok' } as const;
const OUTCOME_ERROR = { [ATTR.outcome]: 'error' } as const;

interface Traced {
  readonly traceparent?: string;
}

function traceparentsOf(logs: readonly unknown[]): Array<string | undefined> {
  return logs.map((log) => {
    const tp = (log as Traced | null)?.traceparent;
    return typeof tp === 'string' ? tp : undefined;
  });
}

/** Runs one job's processing inside a CONSUMER span (tracing on) linked to its logs' requests. */
export function traceJob<T>(job: Job, logs: readonly unknown[], fn: () => Promise<T>): Promise<T> {
  const t = telemetry();
  if (!t.tracing) return fn();
  const tps = traceparentsOf(logs);
  const span = t.tracer.startSpan(
    `process ${REQUEST_LOG_QUEUE}`,
    {
      kind: SpanKind.CONSUMER,
      links: linksFor(tps),
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        [ATTR.queue]: REQUEST_LOG_QUEUE,
        'messaging.message.id': job.id ?? '',
        'messaging.batch.message_count': logs.length,
        'gateway.job.attempt': job.attemptsMade + 1,
      },
    },
    parentFor(tps),
  );
  return settle(span, withSpan(span, fn));
}

/**
 * Writes one batch (one Postgres transaction): the batch span (pg spans nest under it) and the
 * batch size and write duration metrics.
 */
export async function traceBatchWrite<T extends Traced, R>(
  batch: readonly T[],
  write: () => Promise<R>,
): Promise<R> {
  const t = telemetry();
  const started = performance.now();
  const record = (attrs: typeof OUTCOME_OK | typeof OUTCOME_ERROR): void => {
    if (!t.metrics.enabled) return;
    t.metrics.histogram('writeDuration').record((performance.now() - started) / 1000, attrs);
    t.metrics.histogram('batchSize').record(batch.length, attrs);
  };
  let pending: Promise<R>;
  if (t.tracing) {
    const tps = batch.map((log) => log.traceparent);
    const span = t.tracer.startSpan(
      'write request_logs batch',
      {
        kind: SpanKind.INTERNAL,
        links: linksFor(tps),
        attributes: { 'db.system.name': 'postgresql', 'gateway.batch.size': batch.length },
      },
      parentFor(tps),
    );
    pending = settle(span, withSpan(span, write));
  } else {
    pending = write();
  }
  try {
    const result = await pending;
    record(OUTCOME_OK);
    return result;
  } catch (err) {
    record(OUTCOME_ERROR);
    throw err;
  }
}

async function settle<T>(span: Span, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}
