import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type Attributes, context, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, telemetry } from '#libs/telemetry';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { type RequestRecord } from '../logs/request-record.js';
import { type RequestPlan } from '../upstream/request-plan.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { FailoverService } from '../upstream/failover.service.js';
import { type UpstreamRun } from '../upstream/upstream-run.js';
import { EdgeTelemetry } from './edge-telemetry.service.js';

const MEMORY_HIT = { [ATTR.cacheTier]: 'memory', [ATTR.cacheResult]: 'hit' } as const;
const MEMORY_MISS = { [ATTR.cacheTier]: 'memory', [ATTR.cacheResult]: 'miss' } as const;
const REDIS_HIT = { [ATTR.cacheTier]: 'redis', [ATTR.cacheResult]: 'hit' } as const;
const REDIS_MISS = { [ATTR.cacheTier]: 'redis', [ATTR.cacheResult]: 'miss' } as const;

/**
 * The edge's request steps as child spans of the request's server span (auth, quota, routing
 * decision, failover), and the key cache's hit counts and the session-routed requests as
 * observed counters.
 *
 * The spans wrap the services' methods on their instances at start-up, and only while tracing
 * is on: the request path carries no span code, and with tracing off nothing is wrapped at all.
 * Redis calls made inside a step nest under its span (context is active). The log and sample
 * shippers, whose flushes serve many requests, are run outside any trace.
 */
@Injectable()
export class EdgeInstrumentation implements OnModuleInit, OnApplicationShutdown {
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly keys: KeyResolver,
    private readonly quota: QuotaGate,
    private readonly routes: RoutesService,
    private readonly failover: FailoverService,
    private readonly logs: LogShipper,
    private readonly samples: SampleShipper,
    private readonly edge: EdgeTelemetry,
  ) {}

  onModuleInit(): void {
    const t = telemetry();
    if (t.metrics.enabled) {
      this.stops.push(
        t.metrics.observe('keyCacheLookups', (observe) => {
          observe(this.keys.hits, MEMORY_HIT);
          observe(this.keys.misses, MEMORY_MISS);
          observe(this.keys.redisHits, REDIS_HIT);
          observe(this.keys.redisMisses, REDIS_MISS);
        }),
        t.metrics.observe('stickyRequests', (observe) => this.edge.observeSticky(observe)),
      );
    }
    if (!t.tracing) return;
    wrapAsync(this.keys, 'authenticate', () => ({ name: 'auth' }));
    wrapAsync(this.quota, 'admit', () => ({ name: 'quota' }));
    wrapSync(this.routes, 'candidates', (model: string, session: number | null = null) => ({
      name: `route ${model}`,
      // Whether its agent session ordered the candidates; the session itself is never recorded.
      attributes: { [ATTR.requestModel]: model, 'gateway.route.sticky': session !== null },
      onResult: (span, candidates) =>
        span.setAttributes({
          'gateway.route.candidates': candidates.map((c) => c.providerId),
          'gateway.route.states': candidates.map((c) => c.state),
        }),
    }));
    // Their flushes serve many requests: started from one request's context, BullMQ's and the
    // sample stream's Redis calls would show up in whichever trace happened to arm the timer.
    detach(this.logs, 'enqueue');
    detach(this.samples, 'push');
    const edge = this.edge;
    wrapAsync(this.failover, 'call', (plan: RequestPlan, record: RequestRecord) => ({
      name: `failover ${record.model ?? ''}`.trim(),
      attributes: { [ATTR.requestModel]: record.model ?? '', [ATTR.endpoint]: plan.route },
      onStart: (span) => edge.failoverStarted(record, span),
      // The failover returns its failure as a value (with the attempts): the span says it failed.
      onResult: (span, run: UpstreamRun) =>
        run.answer !== null
          ? span.setAttribute(ATTR.providerId, run.answer.providerId)
          : markFailed(span, run.error),
    }));
  }

  onApplicationShutdown(): void {
    for (const stop of this.stops) stop();
  }
}

interface StepSpan<R> {
  readonly name: string;
  readonly attributes?: Attributes;
  readonly onStart?: (span: Span) => void;
  readonly onResult?: (span: Span, result: R) => void;
}

type AnyFn = (...args: never[]) => unknown;

/** Replaces `target[method]` with one that runs it inside a child span of the active context. */
function wrapAsync<T extends object, K extends keyof T & string>(
  target: T,
  method: K,
  describe: T[K] extends AnyFn ? (...args: Parameters<T[K]>) => StepSpan<Awaited<ReturnType<T[K]>>> : never,
): void {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  const spec = describe as unknown as (...args: unknown[]) => StepSpan<unknown>;
  Object.defineProperty(target, method, {
    configurable: true,
    value: function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const step = spec(...args);
      const span = telemetry().tracer.startSpan(step.name, { attributes: step.attributes });
      step.onStart?.(span);
      const run = () => original.apply(this, args);
      return context.with(trace.setSpan(context.active(), span), run).then(
        (result) => {
          step.onResult?.(span, result);
          span.end();
          return result;
        },
        (err: unknown) => {
          failed(span, err);
          throw err;
        },
      );
    },
  });
}

function wrapSync<T extends object, K extends keyof T & string>(
  target: T,
  method: K,
  describe: T[K] extends AnyFn ? (...args: Parameters<T[K]>) => StepSpan<ReturnType<T[K]>> : never,
): void {
  const original = target[method] as unknown as (...args: unknown[]) => unknown;
  const spec = describe as unknown as (...args: unknown[]) => StepSpan<unknown>;
  Object.defineProperty(target, method, {
    configurable: true,
    value: function (this: unknown, ...args: unknown[]): unknown {
      const step = spec(...args);
      const span = telemetry().tracer.startSpan(step.name, { attributes: step.attributes });
      try {
        const result = original.apply(this, args);
        step.onResult?.(span, result);
        span.end();
        return result;
      } catch (err) {
        failed(span, err);
        throw err;
      }
    },
  });
}

/** Runs `target[method]` outside any trace, so timers it arms carry no request's context. */
function detach<T extends object, K extends keyof T & string>(target: T, method: K): void {
  const original = target[method] as unknown as (...args: unknown[]) => unknown;
  Object.defineProperty(target, method, {
    configurable: true,
    value: function (this: unknown, ...args: unknown[]): unknown {
      return context.with(ROOT_CONTEXT, () => original.apply(this, args));
    },
  });
}

function failed(span: Span, err: unknown): void {
  markFailed(span, err);
  span.end();
}

function markFailed(span: Span, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  // Gateway errors name their code (invalid_api_key, insufficient_quota...), never a secret.
  span.setAttribute(ATTR.errorType, (err as { code?: unknown }).code?.toString() ?? e.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}
