import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { type ProviderCredentials } from '#libs/credentials';
import { GatewayError } from '#libs/protocol';
import { adapterOf, type JsonObject, REALTIME_PROTOCOL } from '#libs/providers';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { type ClientSocket } from '../http/endpoint-kinds.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { type AdmissionApi, admit } from '../pipeline/client-request.js';
import { RequestOwner } from '../pipeline/request-owner.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { RoutesService } from '../routing/routes.service.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { CATALOG, CONFIG, CREDENTIALS } from '../tokens.js';
import { RealtimeSession, type SessionServices, type SessionStart } from './realtime-session.js';
import { type UpstreamTarget } from './upstream-socket.js';

const P = REALTIME_PROTOCOL;

/** The handshake read as a request: its key, and the model its query names. */
const HANDSHAKE: AdmissionApi = {
  keySources: P.keySources,
  streams: true,
  validate: (body) =>
    typeof body.model === 'string' && body.model !== ''
      ? null
      : new GatewayError('invalid_request', "Missing required parameter: 'model'.", { param: 'model' }),
  target: (body) => ({ model: body.model, stream: true }),
};

/**
 * The realtime sessions of `/v1/realtime` (docs/realtime.md). The handshake is admitted as a
 * request is (`admit`: the key, from `Authorization` or a browser's key subprotocol; the model of
 * `?model=`, which the key's group must be allowed; quota), and finds the providers serving the
 * model's realtime sessions in route order; a refusal is an HTTP error in the client's shape and no
 * socket opens. Each socket is then one `RealtimeSession`, its responses owned by a `RequestOwner`.
 */
@Injectable()
export class RealtimeSessions implements OnApplicationShutdown {
  private readonly admitted = new WeakMap<FastifyRequest, SessionStart>();
  private readonly open = new Set<RealtimeSession>();
  private readonly services: SessionServices;

  constructor(
    private readonly keys: KeyResolver,
    private readonly quota: QuotaGate,
    private readonly routes: RoutesService,
    private readonly telemetry: EdgeTelemetry,
    private readonly logs: LogShipper,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(CREDENTIALS) credentials: ProviderCredentials,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    const r = config.routing;
    this.services = {
      quota,
      credentials,
      maxAttempts: r.max_attempts,
      connectTimeoutMs: r.connect_timeout_ms + r.first_byte_timeout_ms,
      drainMs: r.idle_timeout_ms,
    };
  }

  /** Sessions open on this edge. */
  get openSessions(): number {
    return this.open.size;
  }

  /** Admits the handshake, or throws the client's error (answered before any upgrade). */
  async handshake(req: FastifyRequest): Promise<void> {
    const query = (req.query ?? {}) as Record<string, string | undefined>;
    const headers = keyedHeaders(req.headers);
    const requested = P.modelOf(query);
    // Admission's notes go on a record of its own, never logged: the session's log rows are its responses.
    const notes = new RequestRecord(req.id, P.route);
    const { key, model, snapshot } = await admit(
      { keys: this.keys, catalog: this.catalog, quota: this.quota },
      HANDSHAKE,
      { headers, query, body: { model: requested } as JsonObject },
      { params: {}, query },
      notes,
      'charged',
    );
    const targets = this.targets(model.id);
    if (targets.length === 0) {
      const served = [...this.catalog.providers.values()].some((p) =>
        p.models.some((m) => m.id === model.id && adapterOf(p.type, m.upstream).realtime !== undefined),
      );
      throw served
        ? new GatewayError('no_available_provider', `No provider is available for the model \`${model.id}\`.`)
        : new GatewayError(
            'invalid_request',
            `The providers of the model \`${model.id}\` cannot serve ${P.route}.`,
            {
              param: 'model',
            },
          );
    }
    this.admitted.set(req, {
      sessionId: req.id,
      key,
      model,
      requestedModel: String(requested),
      snapshot,
      targets,
      headers: req.headers,
    });
  }

  /** One session per socket, from its admitted handshake until both sides closed. */
  serve(req: FastifyRequest, socket: ClientSocket): Promise<void> {
    const start = this.admitted.get(req);
    this.admitted.delete(req);
    if (start === undefined) {
      socket.close(1011, 'internal error');
      return Promise.resolve();
    }
    const owner = new RequestOwner(
      { quota: this.quota, telemetry: this.telemetry, logs: this.logs },
      P.route,
    );
    const session = new RealtimeSession(this.services, owner, socket, start, (s) => this.open.delete(s));
    this.open.add(session);
    return Promise.resolve();
  }

  /** The model's providers that take realtime sessions, in route order (healthy first, as for HTTP). */
  private targets(model: string): UpstreamTarget[] {
    const targets: UpstreamTarget[] = [];
    for (const candidate of this.routes.candidates(model)) {
      const provider = this.catalog.providers.get(candidate.providerId);
      if (provider === undefined) continue;
      const route = adapterOf(provider.type, candidate.upstreamModel).realtime;
      if (route !== undefined) targets.push({ provider, route, upstreamModel: candidate.upstreamModel });
    }
    return targets;
  }

  onApplicationShutdown(): void {
    for (const session of [...this.open]) session.shutDown();
  }
}

/**
 * The handshake's headers with the key where admission reads it: a browser's SDK cannot set
 * `Authorization` and offers the key as a subprotocol instead.
 */
function keyedHeaders(headers: FastifyRequest['headers']): FastifyRequest['headers'] {
  if (headers.authorization !== undefined) return headers;
  const key = P.keyOfSubprotocols(headers['sec-websocket-protocol']);
  return key === null ? headers : { ...headers, authorization: `Bearer ${key}` };
}
