import {
  type Context,
  context,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  trace,
  TraceFlags,
} from '@opentelemetry/api';

/**
 * W3C trace context (`traceparent`) in and out of queue payloads. The edge ships one BullMQ job per
 * flush with many request logs, so the context travels per log, not per job: each log carries its
 * request's `traceparent`, and the worker's spans link to every log's request span, with the
 * request span as parent when a job or batch holds exactly one log.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Most links a worker span records (the SDK's default link limit). */
export const MAX_LINKS = 128;

/** `00-<trace id>-<span id>-<flags>` of a span, or undefined when it records nothing. */
export function traceparentOf(span: Span | undefined): string | undefined {
  if (!span) return undefined;
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return undefined;
  const flags = (sc.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
  return `00-${sc.traceId}-${sc.spanId}-${flags}`;
}

/** The remote span context a traceparent names, or null for a missing or malformed one. */
export function parseTraceparent(value: unknown): SpanContext | null {
  if (typeof value !== 'string') return null;
  const m = TRACEPARENT.exec(value);
  if (!m) return null;
  const sc: SpanContext = {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: parseInt(m[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(sc) ? sc : null;
}

/** The context to start a span in: the one request's span when there is exactly one, else root. */
export function parentFor(traceparents: readonly (string | undefined)[]): Context {
  if (traceparents.length !== 1) return ROOT_CONTEXT;
  const sc = parseTraceparent(traceparents[0]);
  return sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}

/** Links to each distinct valid context, at most MAX_LINKS. */
export function linksFor(traceparents: readonly (string | undefined)[]): Link[] {
  const seen = new Set<string>();
  const links: Link[] = [];
  for (const tp of traceparents) {
    if (links.length >= MAX_LINKS) break;
    if (tp === undefined || seen.has(tp)) continue;
    seen.add(tp);
    const sc = parseTraceparent(tp);
    if (sc) links.push({ context: sc });
  }
  return links;
}

/** Runs `fn` with `span` active (so client spans inside, Redis or pg, become its children). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}
