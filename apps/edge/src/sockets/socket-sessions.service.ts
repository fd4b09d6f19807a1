import { setTimeout as sleep } from 'node:timers/promises';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { hashApiKey } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { ATTR, telemetry } from '#libs/telemetry';
import { type ClientApi } from '#libs/providers';
import { apiKeyOf } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { type ClientSocket } from '../http/endpoint-kinds.js';
import { authenticateClient } from '../pipeline/client-request.js';
import { ModelRequestService } from '../pipeline/model-request.service.js';
import { CONFIG } from '../tokens.js';
import { ApiSession, CLOSE, type SessionContext, type SessionLimits } from './api-session.js';

/**
 * The edge's WebSocket sessions: the handshake's admission (the key, the per-key socket limit,
 * not while draining), each session's services, and what acts on all of them at once: a key
 * invalidation closes that key's sessions once the key no longer works (every edge hears the
 * invalidation), and the edge's shutdown lets each session's response in flight end (up to
 * `edge.shutdown_timeout_ms`), then closes every socket with 1001.
 *
 * The per-key limit is per edge: sockets are long-lived and pinned to the edge that took them, so
 * a Redis count would need heartbeats to forget an edge that died; N edges admit up to N times it.
 */
/** A route's sessions open now and the message bytes they carried, as the metrics read them. */
interface RouteFigures {
  open: number;
  received: number;
  sent: number;
}

@Injectable()
export class SocketSessions implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(SocketSessions.name);
  private readonly byKey = new Map<string, Set<ApiSession>>();
  private readonly limits: SessionLimits;
  /** Per route: the sessions' context (its meter counts that route's bytes) and its figures. */
  private readonly routes = new Map<string, { context: SessionContext; figures: RouteFigures }>();
  private stopObserving: Array<() => void> = [];
  private readonly maxPerKey: number;
  private readonly shutdownTimeoutMs: number;
  private stopListening: (() => void) | null = null;
  private draining = false;
  private emptied: (() => void) | null = null;
  /** Open sessions, on every route. */
  open = 0;

  constructor(
    private readonly requests: ModelRequestService,
    private readonly keys: KeyResolver,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    const ws = config.edge.websockets;
    this.maxPerKey = ws.max_sockets_per_key;
    this.shutdownTimeoutMs = config.edge.shutdown_timeout_ms;
    this.limits = {
      maxSessionMs: ws.max_session_ms,
      idleTimeoutMs: ws.idle_timeout_ms,
      maxMessageBytes: ws.max_message_bytes,
      sendBufferBytes: ws.send_buffer_bytes,
      maxQueuedRequests: ws.max_queued_requests,
      conversationMaxItems: ws.conversation_max_items,
      conversationMaxBytes: ws.conversation_max_bytes,
    };
  }

  /** A route's context and figures, made at its first session. */
  private routeOf(route: string): { context: SessionContext; figures: RouteFigures } {
    const known = this.routes.get(route);
    if (known !== undefined) return known;
    const figures: RouteFigures = { open: 0, received: 0, sent: 0 };
    const context: SessionContext = {
      requests: this.requests,
      ends: this.requests,
      limits: this.limits,
      meter: {
        received: (bytes) => (figures.received += bytes),
        sent: (bytes) => (figures.sent += bytes),
      },
      closed: (session) => this.closed(session),
    };
    const made = { context, figures };
    this.routes.set(route, made);
    return made;
  }

  onModuleInit(): void {
    this.stopListening = this.keys.onInvalidation((hash) => void this.recheck(hash));
    const { metrics } = telemetry();
    if (!metrics.enabled) return;
    // Read at collection from the counts kept here: nothing recorded per message.
    this.stopObserving = [
      metrics.observe('websocketSessions', (observe) => {
        for (const [route, { figures }] of this.routes) observe(figures.open, { [ATTR.httpRoute]: route });
      }),
      metrics.observe('websocketBytes', (observe) => {
        for (const [route, { figures }] of this.routes) {
          observe(figures.received, { [ATTR.httpRoute]: route, [ATTR.ioDirection]: 'receive' });
          observe(figures.sent, { [ATTR.httpRoute]: route, [ATTR.ioDirection]: 'transmit' });
        }
      }),
    ];
  }

  onApplicationShutdown(): void {
    this.stopListening?.();
    for (const stop of this.stopObserving) stop();
  }

  /**
   * The handshake, before the upgrade: a refusal is an HTTP error in the client's shape (401 for
   * the key, 429 past the per-key limit, 503 while the edge drains).
   */
  async admit(api: ClientApi, req: FastifyRequest): Promise<void> {
    if (this.draining) throw new GatewayError('server_busy', 'This edge is shutting down; connect again.');
    await authenticateClient(this.keys, api, req);
    const open = this.byKey.get(this.keyHash(api, req))?.size ?? 0;
    if (open >= this.maxPerKey) {
      throw new GatewayError(
        'rate_limit_exceeded',
        `This API key has ${open} WebSockets open on this server, its limit; close one first.`,
      );
    }
  }

  /** A socket upgraded: its session runs until it closes. */
  serve(api: ClientApi, req: FastifyRequest, socket: ClientSocket): void {
    const hash = this.keyHash(api, req);
    const { context, figures } = this.routeOf(api.route);
    const session = new ApiSession(context, api, req, socket, hash);
    figures.open++;
    let sessions = this.byKey.get(hash);
    if (sessions === undefined) this.byKey.set(hash, (sessions = new Set()));
    sessions.add(session);
    this.open++;
  }

  private closed(session: ApiSession): void {
    const sessions = this.byKey.get(session.keyHash);
    if (sessions?.delete(session) !== true) return;
    if (sessions.size === 0) this.byKey.delete(session.keyHash);
    this.open--;
    this.routes.get(session.api.route)!.figures.open--;
    const seconds = (Date.now() - session.openedAt) / 1000;
    telemetry()
      .metrics.histogram('websocketSessionDuration')
      .record(seconds, {
        [ATTR.httpRoute]: session.api.route,
      });
    if (this.open === 0) this.emptied?.();
  }

  private keyHash(api: ClientApi, req: FastifyRequest): string {
    return hashApiKey(apiKeyOf(req.headers, req.query, api.keySources) ?? '');
  }

  /**
   * A key was invalidated: its sessions check it again (the caches no longer hold it), and those
   * whose key no longer works are closed now, their response in flight cut and charged.
   */
  private async recheck(hash: string): Promise<void> {
    const sessions = this.byKey.get(hash);
    if (sessions === undefined) return;
    for (const session of [...sessions]) {
      try {
        await authenticateClient(this.keys, session.api, session);
      } catch (err) {
        // Postgres unreachable says nothing about the key: the session goes on.
        if (!(err instanceof GatewayError) || err.code !== 'invalid_api_key') continue;
        session.cut(CLOSE.policy, 'API key revoked', {
          kind: 'key_revoked',
          message: 'The API key of this connection was revoked or disabled.',
        });
      }
    }
  }

  /**
   * Shutdown: no new socket, no new request; each session closes (1001) once its response in
   * flight ended, and those still running after the drain's timeout are cut (and charged).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    const all = [...this.byKey.values()].flatMap((s) => [...s]);
    if (all.length === 0) return;
    this.logger.log(`closing ${all.length} WebSocket sessions`);
    const refusal = {
      kind: 'shutting_down',
      message: 'This server is shutting down; connect again.',
    } as const;
    for (const session of all) session.finish(CLOSE.goingAway, 'server shutting down', refusal);
    const emptied = new Promise<void>((resolve) => {
      this.emptied = resolve;
      if (this.open === 0) resolve();
    });
    await Promise.race([emptied, sleep(this.shutdownTimeoutMs)]);
    for (const session of [...this.byKey.values()].flatMap((s) => [...s])) {
      session.cut(CLOSE.goingAway, 'server shutting down');
    }
  }
}
