import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

export const DRAIN_OPTIONS = Symbol('DRAIN_OPTIONS');

export interface DrainOptions {
  /** Readiness fails at once; requests are still served this long, while load balancers catch up. */
  readonly delayMs: number;
  /** Then in-flight requests (streams included) get this long before their connections are cut. */
  readonly timeoutMs: number;
}

/**
 * For the apps whose requests are short (console pages and API, router and worker probes and
 * admin calls): the listener closes at once (in k8s the console's preStop hook has already given
 * the load balancer its delay), and requests get 10 s, well inside the default shutdown budget.
 */
export const SHORT_REQUESTS_DRAIN: DrainOptions = { delayMs: 0, timeoutMs: 10_000 };

/** GracefulDrain and its options, for an app module's providers (runMain begins the drain on SIGTERM). */
export function gracefulDrain(options: DrainOptions): Provider[] {
  return [{ provide: DRAIN_OPTIONS, useValue: options }, GracefulDrain];
}

/**
 * The HTTP half of a graceful stop, run before Nest closes the server (`beforeApplicationShutdown`):
 * 1. `draining` turns true: the readiness probe answers 503 and every response carries
 *    `connection: close`, so keep-alive clients move to another replica;
 * 2. after `delayMs` the listener closes (no new connections);
 * 3. in-flight requests get up to `timeoutMs` to finish; the connections of those still running
 *    are then cut (a stream ends early, its upstream call is aborted and its log says so);
 * 4. the connections left, which carry no request, are closed. Node counts a connection that has
 *    not sent its first request as active rather than idle (so a silent client cannot dodge the
 *    header timeout): `closeIdleConnections` leaves it, and the framework's close would wait for
 *    the client to hang up. Such connections are common: undici opens a spare one when a socket
 *    closes under an aborted request (and drops it after its 4 s keep-alive), load balancers open
 *    them ahead of traffic and may hold them past the process's shutdown budget.
 * Only then do the other shutdown hooks run (the edge's log flush among them), so every request
 * that was served has produced its log before the final flush.
 */
@Injectable()
export class GracefulDrain implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(GracefulDrain.name);
  private readonly inflight = new Set<ServerResponse>();
  /** The in-flight responses of each connection, which all leave with it (see track). */
  private readonly byConnection = new WeakMap<Socket, Set<ServerResponse>>();
  private idle: (() => void) | null = null;
  draining = false;
  /** Requests whose connection the deadline cut, for the shutdown log and tests. */
  cut = 0;

  constructor(
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
    @Inject(DRAIN_OPTIONS) private readonly options: DrainOptions,
  ) {}

  onApplicationBootstrap(): void {
    // Prepended: it runs before the framework's handler, so the header is set on every response.
    this.server().prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) res.setHeader('connection', 'close');
      this.track(req.socket, res);
    });
  }

  /**
   * A request leaves the set when its response closes or when its connection does, whichever
   * comes first: a response queued behind another on a pipelined connection has no socket yet,
   * so it never emits 'close' if the connection goes away before its turn (a client that hangs
   * up, a parse error that ends the connection). One listener per connection, not per request.
   */
  private track(socket: Socket, res: ServerResponse): void {
    this.inflight.add(res);
    const open = this.openResponsesOf(socket);
    open.add(res);
    res.once('close', () => {
      open.delete(res);
      this.untrack(res);
    });
  }

  private openResponsesOf(socket: Socket): Set<ServerResponse> {
    const known = this.byConnection.get(socket);
    if (known !== undefined) return known;
    const open = new Set<ServerResponse>();
    this.byConnection.set(socket, open);
    socket.once('close', () => {
      for (const res of open) this.untrack(res);
      open.clear();
    });
    return open;
  }

  private untrack(res: ServerResponse): void {
    if (this.inflight.delete(res) && this.inflight.size === 0) this.idle?.();
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  /** Readiness fails from now on; runMain calls it on SIGTERM, before any shutdown hook runs. */
  beginDraining(): void {
    this.draining = true;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.beginDraining();
    if (this.options.delayMs > 0) await sleep(this.options.delayMs);
    const server = this.server();
    // The framework closes it again later; Node answers that second close with an error it ignores.
    if (server.listening) server.close();
    server.closeIdleConnections();
    if (this.inflight.size > 0) {
      this.logger.log(
        `draining ${this.inflight.size} in-flight requests (up to ${this.options.timeoutMs} ms)`,
      );
      await this.settled(this.options.timeoutMs);
    }
    if (this.inflight.size > 0) {
      this.cut = this.inflight.size;
      this.logger.warn(`cutting ${this.cut} requests still running after ${this.options.timeoutMs} ms`);
      for (const res of this.inflight) res.destroy();
      // Let the cut requests finish their bookkeeping (logs) before the next shutdown hooks run.
      await this.settled(1_000);
    }
    // No response is being written any more: whatever connection is still open carries no request.
    server.closeAllConnections();
  }

  private settled(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.idle = done;
      if (this.inflight.size === 0) done();
    }).finally(() => {
      this.idle = null;
    });
  }

  private server(): Server {
    return this.host.httpAdapter.getHttpServer() as Server;
  }
}
