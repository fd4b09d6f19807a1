import { type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { type KeyRecord } from '#libs/auth';
import { type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { type ProviderCredentials } from '#libs/credentials';
import { asGatewayError, errorBody, GatewayError } from '#libs/protocol';
import {
  adapterOf,
  REALTIME_PROTOCOL,
  type RealtimeClientEvent,
  type RealtimeError,
  usageOf,
} from '#libs/providers';
import { authorizeModel } from '../auth/model-access.js';
import { type ClientSocket } from '../http/endpoint-kinds.js';
import { type RequestRecord } from '../logs/request-record.js';
import { closeAttempt, newAttempt } from '../logs/upstream-attempt.js';
import { type Outcome } from '../pipeline/request-end.js';
import { type RequestOwner } from '../pipeline/request-owner.js';
import { CHARS_PER_TOKEN } from '../pipeline/usage-estimate.js';
import { type QuotaGate } from '../quota/quota-gate.service.js';
import {
  type OpenedUpstream,
  openUpstream,
  UpstreamRefused,
  type UpstreamTarget,
} from './upstream-socket.js';

const P = REALTIME_PROTOCOL;

/** What a session was admitted with at its handshake. */
export interface SessionStart {
  /** The handshake's request id: each response's request id is it and the response's number. */
  readonly sessionId: string;
  readonly key: KeyRecord;
  readonly model: ModelConfig;
  /** The model as the client named it. */
  readonly requestedModel: string;
  /** The configuration version the session keeps (its models, its prices). */
  readonly snapshot: CatalogSnapshot;
  /** The providers that may serve it, in route order (tried in turn only while opening). */
  readonly targets: readonly UpstreamTarget[];
  /** The handshake's headers (the client's beta flag reaches the provider). */
  readonly headers: IncomingHttpHeaders;
}

/** What a session uses of the edge. */
export interface SessionServices {
  readonly quota: QuotaGate;
  readonly credentials: ProviderCredentials;
  /** Providers tried while opening, at most. */
  readonly maxAttempts: number;
  /** How long opening one provider's session may take. */
  readonly connectTimeoutMs: number;
  /** How long a response the client left is waited for (its usage) once cancelled. */
  readonly drainMs: number;
}

/** One response of the session: a request in every sense the gateway has. */
interface Turn {
  readonly record: RequestRecord;
  /** The text it streamed: a response cut before its usage is charged on it. */
  outputChars: number;
}

const CLIENT_LEFT: Outcome = { status: 200, errorCode: 'client_disconnected', stream: 'aborted' };
const UPSTREAM_BROKE: Outcome = { status: 502, errorCode: 'upstream_error', stream: 'stream_error' };
const SHUT_DOWN: Outcome = { status: 503, errorCode: 'server_busy', stream: 'aborted' };

/**
 * One realtime session: the client's socket relayed to one provider's session and back, frame by
 * frame (text and binary), for the session's life; no failover once open. The relay reads only
 * what the gateway must know (`RealtimeProtocol`): each response's start and its end, whose usage
 * is charged at the session's model's prices (one log row and one charge per response, through
 * the session's `RequestOwner`); a `response.create`, admitted against quota first (refused: an
 * `error` event saying why, and the session ends); a `session.update` naming a model, allowed
 * only when the key's group may use it and the session's provider serves it. A response cut by
 * either side is charged once, on what it streamed.
 */
export class RealtimeSession {
  private upstream: WebSocket | null = null;
  private target: UpstreamTarget | null = null;
  private model: ModelConfig;
  private requestedModel: string;
  /** Client frames run in order, each after the one before (an admission may be awaited). */
  private inbound: Promise<void>;
  private readonly turns = new Map<string, Turn>();
  /** The response streaming now (deltas name no turn the edge parses for). */
  private current: Turn | null = null;
  /** Responses the client asked for and quota admitted, not yet started upstream. */
  private admitted = 0;
  private count = 0;
  private ended = false;
  private drain: NodeJS.Timeout | null = null;

  constructor(
    private readonly edge: SessionServices,
    private readonly owner: RequestOwner,
    private readonly client: ClientSocket,
    private readonly start: SessionStart,
    private readonly onEnd: (session: RealtimeSession) => void,
  ) {
    this.model = start.model;
    this.requestedModel = start.requestedModel;
    client.onMessage((data, binary) => this.fromClient(data, binary));
    client.onClose(() => this.clientLeft());
    this.inbound = this.open().catch((err: unknown) => this.fail(err, null));
  }

  /** Responses open now. */
  get openResponses(): number {
    return this.turns.size;
  }

  /** The edge shuts down: responses in flight are charged on what they streamed; both sides closed. */
  shutDown(): void {
    this.sendError(new GatewayError('server_busy', 'The gateway is shutting down; reconnect.'), null);
    this.finish(SHUT_DOWN, 1001, 'going away');
  }

  private async open(): Promise<void> {
    let lastError: unknown = null;
    for (const target of this.start.targets.slice(0, this.edge.maxAttempts)) {
      if (this.ended) return;
      try {
        const opened = await openUpstream(
          target,
          this.start.headers,
          this.edge.credentials,
          this.edge.connectTimeoutMs,
        );
        if (this.ended) {
          opened.socket.close(1000, 'client left');
          return;
        }
        this.attach(opened, target);
        return;
      } catch (err) {
        lastError = err;
      }
    }
    const why = lastError instanceof UpstreamRefused ? lastError.message : 'unreachable';
    throw new GatewayError(
      'upstream_error',
      `The provider for this model could not open a realtime session (${why}).`,
    );
  }

  private attach(opened: OpenedUpstream, target: UpstreamTarget): void {
    const socket = opened.socket;
    this.upstream = socket;
    this.target = target;
    opened.take((data, binary) => this.fromUpstream(toBuffer(data), binary));
    socket.on('close', (code: number, reason: Buffer) => this.upstreamClosed(code, reason.toString('utf8')));
    socket.on('error', () => undefined); // its close follows
  }

  // ---- client -> provider

  private fromClient(data: Buffer, binary: boolean): void {
    this.inbound = this.inbound
      .then(() => this.clientFrame(data, binary))
      .catch((err: unknown) => this.fail(err, null));
  }

  private async clientFrame(data: Buffer, binary: boolean): Promise<void> {
    if (this.ended || this.upstream === null) return;
    if (binary) return this.toUpstream(data, true);
    const text = data.toString('utf8');
    const event = P.clientEvent(text);
    if (event.kind === 'model') {
      const renamed = this.changeModel(event, text);
      if (renamed !== null) this.toUpstream(renamed, false);
      return;
    }
    if (event.kind === 'response') {
      try {
        await this.edge.quota.admit(this.start.key, this.model.id);
      } catch (err) {
        return this.refuseAndEnd(err, event.eventId);
      }
      if (this.ended) return;
      this.admitted++;
    }
    this.toUpstream(text, false);
  }

  /**
   * A `session.update` naming a model: the event with the provider's name for it, or null when
   * refused (an `error` event said why; the session goes on with its model).
   */
  private changeModel(event: Extract<RealtimeClientEvent, { kind: 'model' }>, text: string): string | null {
    let model: ModelConfig;
    try {
      model = authorizeModel(this.start.snapshot, this.start.key, event.model);
    } catch (err) {
      this.sendError(asGatewayError(err), event.eventId, 'session.model');
      return null;
    }
    const target = this.target!;
    const served = target.provider.models.find((m) => m.id === model.id);
    if (served === undefined || adapterOf(target.provider.type, served.upstream).realtime === undefined) {
      this.sendError(
        new GatewayError(
          'invalid_request',
          `The model \`${model.id}\` cannot be served in this session: open a new session for it.`,
          { param: 'session.model' },
        ),
        event.eventId,
      );
      return null;
    }
    this.model = model;
    this.requestedModel = String(event.model);
    const route = target.route;
    const named = route.eventModel?.(served.upstream, target.provider) ?? served.upstream;
    return P.withModel(text, named);
  }

  private toUpstream(data: string | Buffer, binary: boolean): void {
    this.upstream?.send(data, { binary });
  }

  // ---- provider -> client

  private fromUpstream(data: Buffer, binary: boolean): void {
    if (this.ended && this.drain === null) return;
    // The protocol is JSON text; a binary frame is passed on as the text it holds.
    const text = data.toString('utf8');
    if (!binary) {
      const event = P.serverEvent(text);
      switch (event.kind) {
        case 'response_started':
          this.started(event.responseId);
          break;
        case 'output':
          if (this.current !== null) {
            this.current.record.markFirstByte();
            this.current.outputChars += event.text.length;
          }
          break;
        case 'response_done':
          this.done(event.responseId, event.usage, event.status);
          break;
        case 'other':
          break;
      }
    }
    if (!this.ended) this.client.sendText(text);
    else if (this.turns.size === 0) this.finish(CLIENT_LEFT, 1000, 'client left');
  }

  private started(responseId: string | null): void {
    this.current = this.turn(responseId);
    if (this.admitted > 0) {
      this.admitted--;
      return;
    }
    // A response the provider started on its own (voice activity): admitted as it starts.
    this.edge.quota
      .admit(this.start.key, this.model.id)
      .catch((err: unknown) => this.refuseAndEnd(err, null));
  }

  /** The response's turn, started now when it has none (its first event is its end). */
  private turn(responseId: string | null): Turn {
    const id = responseId ?? `anonymous-${this.count + 1}`;
    const held = this.turns.get(id);
    if (held !== undefined) return held;
    const record = this.owner.start(`${this.start.sessionId}-${++this.count}`);
    record.authenticated(this.start.key);
    record.requested(this.requestedModel);
    record.targeted(this.model.id, true, this.model.pricing);
    const target = this.target!;
    const attempt = newAttempt(target.provider.id, this.model.id, target.upstreamModel, [], 0, false);
    closeAttempt(attempt, 0, 101, 'ok');
    record.attempted([attempt], false);
    const turn: Turn = { record, outputChars: 0 };
    this.turns.set(id, turn);
    return turn;
  }

  private done(
    responseId: string | null,
    usage: ReturnType<typeof usageOf> | null,
    status: string | null,
  ): void {
    const id = responseId ?? [...this.turns.keys()].at(-1) ?? null;
    const turn = this.turn(id);
    this.turns.delete(id ?? `anonymous-${this.count}`);
    if (this.current === turn) this.current = null;
    if (usage !== null) turn.record.measured(usage);
    else turn.record.measured(estimated(turn), true);
    this.owner.end(turn.record, { status: 200, errorCode: status === 'failed' ? 'upstream_error' : null });
  }

  // ---- ends

  private clientLeft(): void {
    if (this.ended) return;
    this.ended = true;
    const upstream = this.upstream;
    if (this.turns.size === 0 || upstream === null || upstream.readyState !== WebSocket.OPEN) {
      this.finish(CLIENT_LEFT, 1000, 'client left');
      return;
    }
    // Responses in flight: the provider is asked to stop, and its `response.done` (their usage) awaited.
    for (const id of this.turns.keys()) upstream.send(P.cancelEvent(id.startsWith('anonymous-') ? null : id));
    this.drain = setTimeout(() => this.finish(CLIENT_LEFT, 1000, 'client left'), this.edge.drainMs);
  }

  private upstreamClosed(code: number, reason: string): void {
    if (this.drain !== null || this.ended) return this.finish(CLIENT_LEFT, 1000, 'client left');
    const cut = this.turns.size > 0;
    if (cut)
      this.sendError(
        new GatewayError('upstream_error', 'The provider for this model broke off its response.'),
        null,
      );
    // The provider's own close codes (normal, or its application codes) reach the client as they came.
    const relayed = code === 1000 || (code >= 3000 && code <= 4999);
    this.finish(
      cut ? UPSTREAM_BROKE : CLIENT_LEFT,
      relayed ? code : 1011,
      relayed ? reason : 'upstream closed',
    );
  }

  /** Quota refused a response: an `error` event saying why, then the session ends. */
  private refuseAndEnd(err: unknown, clientEventId: string | null): void {
    if (this.ended) return;
    this.sendError(asGatewayError(err), clientEventId);
    this.finish(CLIENT_LEFT, 1008, 'quota');
  }

  private fail(err: unknown, clientEventId: string | null): void {
    if (this.ended) return;
    this.sendError(asGatewayError(err), clientEventId);
    this.finish(UPSTREAM_BROKE, 1011, 'upstream unavailable');
  }

  /** Every open response ends (charged on what it streamed), both sides close, once. */
  private finish(outcome: Outcome, code: number, reason: string): void {
    if (this.drain !== null) clearTimeout(this.drain);
    this.drain = null;
    const first = !this.ended || this.turns.size > 0 || this.upstream?.readyState === WebSocket.OPEN;
    this.ended = true;
    for (const turn of this.turns.values()) turn.record.measured(estimated(turn), true);
    this.turns.clear();
    this.owner.endAll(outcome);
    const upstream = this.upstream;
    if (upstream !== null && upstream.readyState <= WebSocket.OPEN) upstream.close(1000, 'session ended');
    this.client.close(code, reason);
    if (first) this.onEnd(this);
  }

  private sendError(err: GatewayError, clientEventId: string | null, param?: string): void {
    const body = errorBody(err, P.errors) as { error: RealtimeError };
    const error = param === undefined ? body.error : { ...body.error, param };
    this.client.sendText(P.errorEvent(error, clientEventId));
  }
}

/** A response's usage when it was cut before its own count: its streamed text, one token per four characters. */
function estimated(turn: Turn): ReturnType<typeof usageOf> {
  return usageOf({ output: Math.ceil(turn.outputChars / CHARS_PER_TOKEN) });
}

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
