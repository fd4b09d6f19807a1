import { EventEmitter } from 'node:events';
import { type GatewayError, sseData, SseEventSplitter } from '#libs/protocol';
import { type AnsweredResponse, type SessionProtocol } from '#libs/providers';
import { type ClientSocket } from '../http/endpoint-kinds.js';
import { type ClientAnswer } from '../pipeline/client-answer.js';
import { type SseClient } from '../pipeline/sse-writer.js';

/** What a session learns when one request's answer is over for the client. */
export interface AnswerEnd {
  /** The response the stream completed (the conversation keeps it), or null. */
  readonly answered: AnsweredResponse | null;
}

/** What an answer needs of its session: the socket, its wire, its bound, its counters. */
export interface AnswerContext {
  readonly socket: ClientSocket;
  readonly protocol: SessionProtocol;
  /** Bytes queued to the client above which the upstream is paused. */
  readonly sendBufferBytes: number;
  /** Counts the bytes sent (the session's metrics). */
  sent(bytes: number): void;
}

/**
 * One request's answer on a WebSocket session (`ClientAnswer`, so `ModelRequest` serves it as it
 * serves a reply): an error or a whole answer is one message; a stream is the same events the SSE
 * stream carries, each sent as one message (its `data:` payload). `ended` is called once, when
 * the answer is over for the client.
 */
export class SocketAnswer implements ClientAnswer {
  private stream_: SocketStream | null = null;
  private over = false;
  private socketGone = false;

  constructor(
    private readonly ctx: AnswerContext,
    private readonly ended: (end: AnswerEnd) => void,
  ) {}

  error(err: GatewayError): void {
    this.send(this.ctx.protocol.errorEvent(err));
    this.finish(null);
  }

  /** Headers are the HTTP reply's; a socket's events carry no such facts (the log row has them). */
  header(): void {}

  body(status: number, body: Buffer | string): void {
    this.send(this.ctx.protocol.bodyEvent(status, body.toString()));
    this.finish(null);
  }

  stream(): SseClient {
    this.stream_ = new SocketStream(this.ctx, (answered) => this.finish(answered));
    // Routed after the client left: the relay hears so as soon as it listens, and charges the start.
    if (this.socketGone) this.stream_.clientGone();
    return this.stream_;
  }

  /** The socket closed: a stream still running hears its client is gone (the relay stops and charges). */
  socketClosed(): void {
    this.socketGone = true;
    this.stream_?.clientGone();
    this.finish(null);
  }

  private send(text: string): void {
    if (this.socketGone) return;
    this.ctx.sent(Buffer.byteLength(text));
    this.ctx.socket.sendText(text);
  }

  private finish(answered: AnsweredResponse | null): void {
    if (this.over) return;
    this.over = true;
    this.ended({ answered });
  }
}

/**
 * The relay's client (`SseClient`) on a socket. The relay writes SSE text (whole events, as the
 * hooks make them); each event's payload leaves as one message. Backpressure: `write` says false
 * once the socket holds more than the bound unsent, and 'drain' comes when a send's callback finds
 * it back under, so the relay pauses the upstream instead of the edge buffering without end.
 */
class SocketStream extends EventEmitter implements SseClient {
  private readonly splitter = new SseEventSplitter();
  private answered: AnsweredResponse | null = null;
  private waiting = false;
  private closed = false;
  writableFinished = false;

  constructor(
    private readonly ctx: AnswerContext,
    private readonly done: (answered: AnsweredResponse | null) => void,
  ) {
    super();
  }

  write(text: string): boolean {
    if (this.closed) return true;
    const { protocol, socket } = this.ctx;
    this.splitter.feed(Buffer.from(text));
    for (let event = this.splitter.next(); event !== null; event = this.splitter.next()) {
      const data = sseData(event);
      if (data === null) continue;
      this.answered = protocol.answered(data) ?? this.answered;
      const message = protocol.message(data);
      if (message === null) continue;
      this.ctx.sent(Buffer.byteLength(message));
      socket.sendText(message, this.sentOne);
    }
    if (socket.bufferedBytes <= this.ctx.sendBufferBytes) return true;
    this.waiting = true;
    return false;
  }

  /** A message left for the network: once the queue is back under the bound, the relay reads on. */
  private readonly sentOne = (): void => {
    if (!this.waiting || this.ctx.socket.bufferedBytes > this.ctx.sendBufferBytes) return;
    this.waiting = false;
    this.emit('drain');
  };

  /** The stream ended for the client; the socket stays open for the session's next request. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.writableFinished = true;
    this.done(this.answered);
    this.emit('close');
  }

  /** The relay could not even tell the client the stream broke: nothing more is sent. */
  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.done(null);
    this.emit('close');
  }

  /**
   * The socket closed under the stream: 'close' before the end tells the relay its client hung
   * up. Emitted on the next tick when the relay is not listening yet (the socket closed while the
   * request was still being routed), so it is heard once it is.
   */
  clientGone(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.listenerCount('close') > 0) this.emit('close');
    else setImmediate(() => this.emit('close'));
  }
}
