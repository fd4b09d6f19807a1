import {
  type CallHandler,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { type Context, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { type BoundHistogram } from './hot-histograms.js';
import { ATTR } from './instruments.js';
import { REQUEST_ID_KEY } from '#libs/logging';
import { telemetry } from './sdk.js';

/** Probes and scrapes every few seconds would bury the traces worth reading. */
const UNTRACED: ReadonlySet<string> = new Set(['/metrics', '/healthz', '/readyz']);

/** Server spans of requests in flight, by request id: the edge annotates them when a request ends. */
const requestSpans = new Map<string, Span>();

/** The server span of a request still in flight (undefined when tracing is off or it ended). */
export function requestSpan(requestId: string): Span | undefined {
  return requestSpans.get(requestId);
}

/**
 * One SERVER span per request handled by a controller, active for everything the handler does
 * (so Redis, Postgres and our own spans nest under it), ended when the response is closed.
 *
 * The context is entered at subscription, where Nest calls the handler: Fastify parses the body in
 * socket callbacks that lose any context entered in an earlier hook, so a hook could not do this.
 */
class TraceInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = ctx.switchToHttp();
    const active = openServerSpan(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
    if (active === undefined) return next.handle();
    return new Observable((subscriber) => context.with(active, () => next.handle().subscribe(subscriber)));
  }
}

/**
 * `run` (a route's handler) inside the request's server span, as the interceptor above runs Nest's
 * handlers: for the routes served by Fastify directly, which call it when tracing is on.
 */
export function inServerSpan<T>(req: FastifyRequest, reply: FastifyReply, run: () => T): T {
  const active = openServerSpan(req, reply);
  return active === undefined ? run() : context.with(active, run);
}

/** A request some exchange carries (a WebSocket session's response): its span's ends. */
export interface CarriedSpan {
  /** Runs `fn` inside the span, so the request's own spans (upstream attempts) nest under it. */
  run<T>(fn: () => T): T;
  /** The request's answer ended; `error`: the log's error code, when it failed. */
  end(error: string | null): void;
}

const UNTRACED_CARRIED: CarriedSpan = { run: (fn) => fn(), end: () => undefined };

/**
 * A SERVER span for one request of a WebSocket session, which has no HTTP response of its own to
 * end it: registered by its request id as an HTTP request's is, so the edge annotates it at the
 * request's end, and ended by the session when the answer did. Nothing when tracing is off.
 */
export function carriedRequestSpan(requestId: string, route: string): CarriedSpan {
  if (!telemetry().tracing) return UNTRACED_CARRIED;
  const span = telemetry().tracer.startSpan(`WS ${route}`, {
    kind: SpanKind.SERVER,
    attributes: { [ATTR.httpRoute]: route, 'url.path': route, [ATTR.requestId]: requestId },
  });
  requestSpans.set(requestId, span);
  const active = trace.setSpan(context.active(), span).setValue(REQUEST_ID_KEY, requestId);
  return {
    run: (fn) => context.with(active, fn),
    end: (error) => {
      requestSpans.delete(requestId);
      if (error !== null) span.setAttribute(ATTR.errorType, error);
      span.end();
    },
  };
}

/**
 * Opens the request's SERVER span (ended when its response closes) and returns the context its
 * handler runs in, or undefined for an untraced route.
 */
function openServerSpan(req: FastifyRequest, reply: FastifyReply): Context | undefined {
  const route = req.routeOptions.url ?? req.url;
  if (UNTRACED.has(route)) return undefined;
  const span = telemetry().tracer.startSpan(`${req.method} ${route}`, {
    kind: SpanKind.SERVER,
    attributes: {
      [ATTR.httpMethod]: req.method,
      [ATTR.httpRoute]: route,
      'url.path': req.url.split('?', 1)[0],
      [ATTR.requestId]: req.id,
    },
  });
  const id = req.id;
  requestSpans.set(id, span);
  reply.raw.once('close', () => {
    requestSpans.delete(id);
    const status = reply.raw.statusCode;
    span.setAttribute(ATTR.httpStatus, status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!reply.raw.writableFinished) span.setAttribute(ATTR.errorType, 'client_disconnected');
    span.end();
  });
  return trace.setSpan(context.active(), span).setValue(REQUEST_ID_KEY, id);
}

/**
 * Telemetry for one Nest app on Fastify: `http.server.request.duration` for every response, and
 * when tracing is on, a server span per handled request. Call before `app.init()`. With
 * telemetry off this adds nothing at all to a request.
 */
export function instrumentApp(app: INestApplication): void {
  const t = telemetry();
  if (t.metrics.enabled) {
    const histogram = t.metrics.histogram('httpServerDuration');
    // Bound series by method, route and status: routes are the app's own, so this stays small.
    const series = new Map<string, BoundHistogram>();
    const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
    fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      // Unmatched paths share one label: a scanner must not mint a series per URL it tries.
      const route = req.routeOptions.url ?? 'unmatched';
      const key = `${req.method} ${route} ${reply.statusCode}`;
      let bound = series.get(key);
      if (!bound) {
        bound = histogram.bind({
          [ATTR.httpMethod]: req.method,
          [ATTR.httpRoute]: route,
          [ATTR.httpStatus]: reply.statusCode,
        });
        series.set(key, bound);
      }
      bound.record(reply.elapsedTime / 1000);
      done();
    });
  }
  if (t.tracing) app.useGlobalInterceptors(new TraceInterceptor());
}
