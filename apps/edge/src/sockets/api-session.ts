import { type FastifyRequest } from 'fastify';
import {
  type ClientApi,
  type SessionError,
  type SessionProtocol,
  type SessionRefusal,
  type JsonObject,
} from '#libs/providers';
import { newRequestId } from '#libs/runtime';
import { carriedRequestSpan } from '#libs/telemetry';
import { type ClientSocket } from '../http/endpoint-kinds.js';
import { type ClientAnswer } from '../pipeline/client-answer.js';
import { type ModelInput } from '../pipeline/model-request.js';
import { type RecordKeeper, type RequestEndServices } from '../pipeline/request-end.js';
import { RequestOwner } from '../pipeline/request-owner.js';
import { type ClientRequestParts } from '#libs/providers';
import { Conversation, type History } from './conversation.js';
import { type AnswerEnd, SocketAnswer } from './socket-answer.js';

/** `edge.websockets`, as a session reads it. */
export interface SessionLimits {
  readonly maxSessionMs: number;
  readonly idleTimeoutMs: number;
  readonly maxMessageBytes: number;
  readonly sendBufferBytes: number;
  readonly maxQueuedRequests: number;
  readonly conversationMaxItems: number;
  readonly conversationMaxBytes: number;
}

/** The pipeline as a session calls it (ModelRequestService.serve). */
export interface CarriedRequests {
  serve(
    api: ClientApi,
    input: ModelInput,
    answer: ClientAnswer,
    keeper: RecordKeeper,
    parts: ClientRequestParts,
  ): Promise<void>;
}

/** What a session is given by the edge's sessions (sockets.service.ts). */
export interface SessionContext {
  readonly requests: CarriedRequests;
  readonly ends: RequestEndServices;
  readonly limits: SessionLimits;
  /** Told of bytes in and out, and once of the session's end. */
  readonly meter: SessionMeter;
  closed(session: ApiSession): void;
}

export interface SessionMeter {
  received(bytes: number): void;
  sent(bytes: number): void;
}

/** WebSocket close codes (RFC 6455, 7.4.1). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  policy: 1008,
  tooBig: 1009,
} as const;

const NO_PARTS: ClientRequestParts = { params: {}, query: {} };

/**
 * One WebSocket session of a client API that has a socket wire (`ClientApi.socket`): each request
 * event is one request of the gateway in every sense (admitted, routed, failed over, logged and
 * charged by `ModelRequest`, answered on the socket), owned by the session's `RequestOwner`. The
 * requests run one at a time, in the order they came: one sent while another is in flight waits
 * (up to `maxQueuedRequests`), as the API runs a connection's responses in sequence. A message it
 * cannot read is an error event and the session goes on; one it must not read (binary, too large)
 * is an error event and a close.
 */
export class ApiSession {
  private readonly protocol: SessionProtocol;
  private readonly owner: RequestOwner;
  private readonly conversation: Conversation;
  private readonly queue: JsonObject[] = [];
  private inflight: { answer: SocketAnswer; answerOpen: boolean; recordOpen: boolean } | null = null;
  private closing: { code: number; reason: string } | null = null;
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly lifeTimer: NodeJS.Timeout;
  readonly openedAt = Date.now();

  constructor(
    private readonly ctx: SessionContext,
    readonly api: ClientApi,
    private readonly handshake: FastifyRequest,
    private readonly socket: ClientSocket,
    /** The hash of the session's key: what a revocation names. */
    readonly keyHash: string,
  ) {
    this.protocol = api.socket!;
    this.owner = new RequestOwner(ctx.ends, api.route);
    this.conversation = new Conversation({
      maxItems: ctx.limits.conversationMaxItems,
      maxBytes: ctx.limits.conversationMaxBytes,
    });
    socket.onMessage(this.message);
    socket.onClose(this.socketClosed);
    this.lifeTimer = setTimeout(this.expired, ctx.limits.maxSessionMs);
    this.idle();
  }

  /** The handshake's headers and query: where the key is, which a revocation checks again. */
  get headers(): FastifyRequest['headers'] {
    return this.handshake.headers;
  }

  get query(): unknown {
    return this.handshake.query;
  }

  /**
   * Ends the session after its response in flight (if any) ends: nothing new is taken, then an
   * error event says why (when there is a why) and the socket closes with `code`.
   */
  finish(code: number, reason: string, refusal?: { kind: SessionRefusal; message: string }): void {
    if (this.closed || this.closing !== null) return;
    this.closing = { code, reason };
    if (refusal !== undefined) this.queueRefusals(refusal);
    this.queue.length = 0;
    if (this.inflight === null) this.close();
  }

  /** Ends the session now: a response in flight is cut (its relay stops and charges what it made). */
  cut(code: number, reason: string, refusal?: { kind: SessionRefusal; message: string }): void {
    if (this.closed) return;
    if (refusal !== undefined) this.refuse(this.protocol.refusal(refusal.kind, refusal.message));
    this.closing = { code, reason };
    this.close();
  }

  private queueRefusals(refusal: { kind: SessionRefusal; message: string }): void {
    const error = this.protocol.refusal(refusal.kind, refusal.message);
    // Each request left waiting is told it will not run.
    for (let i = 0; i < this.queue.length; i++) this.refuse(error);
    if (this.inflight === null) this.refuse(error);
    else this.pendingRefusal = error;
  }

  private pendingRefusal: SessionError | null = null;

  private readonly message = (data: Buffer, binary: boolean): void => {
    if (this.closed) return;
    this.ctx.meter.received(data.length);
    this.idle();
    if (binary) {
      this.refuse(this.protocol.refusal('binary_message', 'This socket takes JSON text messages only.'));
      return this.cut(CLOSE.unsupportedData, 'binary message');
    }
    if (data.length > this.ctx.limits.maxMessageBytes) {
      const max = this.ctx.limits.maxMessageBytes;
      this.refuse(this.protocol.refusal('message_too_large', `A message may hold at most ${max} bytes.`));
      return this.cut(CLOSE.tooBig, 'message too large');
    }
    if (this.closing !== null) return;
    const event = this.protocol.readEvent(data.toString('utf8'));
    if (event.kind === 'refused') return this.refuse(event.error);
    if (this.inflight !== null && this.queue.length >= this.ctx.limits.maxQueuedRequests) {
      const max = this.ctx.limits.maxQueuedRequests;
      const why = `A response is in flight and ${max} more wait; send the next when one completes.`;
      return this.refuse(this.protocol.refusal('queue_full', why));
    }
    this.queue.push(event.body);
    this.next();
  };

  /** The next request waiting, once none is in flight. */
  private next(): void {
    while (this.inflight === null && this.closing === null && !this.closed) {
      const body = this.queue.shift();
      if (body === undefined) return this.idle();
      this.run(body);
    }
  }

  /**
   * One request: its continuation expanded from the conversation (or refused), then the pipeline,
   * its record started and ended by the session's owner, its span ended with its record.
   */
  private run(body: JsonObject): void {
    const turn = this.protocol.turn(body);
    const history = this.conversation.expand(turn);
    if (typeof history === 'string') {
      const why =
        history === 'unknown_previous'
          ? `Previous response with id '${String(turn.previous).slice(0, 100)}' not found on this connection (it keeps its most recent response only).`
          : `The conversation would exceed this connection's bound (${this.ctx.limits.conversationMaxItems} items, ${this.ctx.limits.conversationMaxBytes} bytes); start a new chain with the whole input.`;
      return this.refuse(this.protocol.refusal(history, why));
    }
    this.stopIdle();
    const sent = turn.previous === null ? body : this.protocol.withHistory(body, history.items);
    const id = newRequestId();
    const span = carriedRequestSpan(id, this.api.route);
    const flight = {
      answer: new SocketAnswer(
        {
          socket: this.socket,
          protocol: this.protocol,
          sendBufferBytes: this.ctx.limits.sendBufferBytes,
          sent: (bytes) => this.ctx.meter.sent(bytes),
        },
        (end) => this.answered(history, end),
      ),
      answerOpen: true,
      recordOpen: true,
    };
    this.inflight = flight;
    const keeper: RecordKeeper = {
      start: (requestId) => this.owner.start(requestId),
      end: (record, outcome) => {
        this.owner.end(record, outcome);
        span.end(outcome.errorCode);
        flight.recordOpen = false;
        this.settle();
      },
    };
    const input: ModelInput = {
      id,
      headers: this.handshake.headers,
      query: this.handshake.query,
      body: sent,
    };
    // ModelRequest answers every failure itself; a throw here is a bug the session survives.
    span
      .run(() => this.ctx.requests.serve(this.api, input, flight.answer, keeper, NO_PARTS))
      .catch((err: unknown) => this.handshake.log.error({ msg: 'socket request failed', err }));
  }

  /** The answer is over for the client: the conversation keeps a completed response. */
  private answered(history: History, end: AnswerEnd): void {
    if (end.answered !== null) this.conversation.keep(history, end.answered);
    if (this.inflight === null) return;
    this.inflight.answerOpen = false;
    this.settle();
  }

  /**
   * The request in flight is over once its answer and its record both are (a cut stream's record
   * ends after its tokens are counted): only then does the next one run, or the session close.
   */
  private settle(): void {
    const flight = this.inflight;
    if (flight === null || flight.answerOpen || flight.recordOpen) return;
    this.inflight = null;
    this.afterRequest();
  }

  private afterRequest(): void {
    if (this.closed) return this.owner.endAll(LEFT);
    if (this.closing !== null) {
      if (this.pendingRefusal !== null) this.refuse(this.pendingRefusal);
      return this.close();
    }
    this.next();
  }

  private refuse(error: SessionError): void {
    if (this.closed) return;
    const text = this.protocol.errorEvent(error);
    this.ctx.meter.sent(Buffer.byteLength(text));
    this.socket.sendText(text);
  }

  private close(): void {
    const { code, reason } = this.closing!;
    this.socket.close(code, reason);
    // The library tells of the close once the peer answers it; the session is over now.
    this.socketClosed();
  }

  private readonly socketClosed = (): void => {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.lifeTimer);
    this.stopIdle();
    this.queue.length = 0;
    this.inflight?.answer.socketClosed();
    // Nothing is left open unless a request is still being ended (its relay stops, then charges).
    if (this.inflight === null) this.owner.endAll(LEFT);
    this.ctx.closed(this);
  };

  /** The session reached its longest life: it ends once its response in flight does. */
  private readonly expired = (): void => {
    const minutes = Math.round(this.ctx.limits.maxSessionMs / 60_000);
    this.finish(CLOSE.goingAway, 'session duration limit', {
      kind: 'session_expired',
      message: `This connection reached its ${minutes}-minute limit; open a new one to continue.`,
    });
  };

  /** No request in flight: the idle clock runs from now. */
  private idle(): void {
    if (this.closed || this.inflight !== null) return;
    if (this.idleTimer === null) this.idleTimer = setTimeout(this.idled, this.ctx.limits.idleTimeoutMs);
    else this.idleTimer.refresh();
  }

  private stopIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private readonly idled = (): void => {
    if (this.inflight === null) this.finish(CLOSE.normal, 'idle timeout');
  };

  /** Whether a response is in flight (the edge's shutdown waits for it). */
  get busy(): boolean {
    return this.inflight !== null;
  }
}

/** How a request still open when its session ended is logged (none should be: each ends itself). */
const LEFT = { status: 200, errorCode: 'client_disconnected', stream: 'aborted' } as const;
