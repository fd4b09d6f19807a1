import { Dispatcher, errors } from 'undici';
import { isRetriableStatus } from './upstream-failure.js';

/** An upstream answer read whole: what a non-stream attempt needs, without a body stream. */
export interface BufferedResponse {
  readonly statusCode: number;
  readonly headers: Dispatcher.ResponseData['headers'];
  /** The whole body; empty when it is dropped (a status the failover moves on from: 429, 5xx). */
  readonly body: Buffer;
  /**
   * Only for a dropped body: settles once it was read off or given up on, never rejects (the
   * failover waits for it as it waited for undici's `dump()`, so the connection is free again).
   */
  readonly drained?: Promise<void>;
}

/**
 * The answer's headers came, then its body broke (idle timeout, connection lost, aborted): the
 * error undici gave, with the status, so the failover logs it as a body broken off.
 */
export class BrokenBody extends Error {
  constructor(
    readonly statusCode: number,
    override readonly cause: unknown,
  ) {
    super(`the upstream body broke off after HTTP ${statusCode}`);
  }
}

/** Like undici's `dump()`: a dropped body longer than this closes the connection instead of being read. */
const DROP_LIMIT = 128 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * undici's key for the hook a dispatcher calls while a request waits for a connection, so an
 * abort takes it out of the queue at once (as `request()` does). undici does not export it: it
 * is read once from what `request()` dispatches with a signal. Without it (another undici) an
 * aborted request still fails at once; it then leaves the queue when a connection takes it.
 */
const QUEUED_ABORT: symbol | undefined = (() => {
  let key: symbol | undefined;
  const probe = {
    dispatch(opts: object): boolean {
      key = Object.getOwnPropertySymbols(opts).find((s) => s.description === 'queued abort');
      return true;
    },
  };
  const signal = new AbortController().signal;
  try {
    const request = Dispatcher.prototype.request as (opts: object, callback: () => void) => void;
    request.call(probe, { path: '/', method: 'GET', signal }, () => undefined);
  } catch {
    // Another undici: the fallback above.
  }
  return key;
})();

/**
 * Sends one request through `dispatcher` and reads its answer whole. Rejects with undici's error
 * before the headers, with `BrokenBody` after them, with `signal.reason` when the signal aborts
 * first (as `request()` does). The same options as `request()` apply: timeouts, body, headers.
 */
export function dispatchBuffered(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: AbortSignal,
): Promise<BufferedResponse> {
  if (signal.aborted) return Promise.reject(abortReason(signal) as Error);
  return new Promise<BufferedResponse>((resolve, reject) => {
    const handler = new BufferingHandler(signal, resolve, reject);
    // `opts` is the caller's own object per request: the hook goes on it rather than on a copy.
    if (QUEUED_ABORT !== undefined)
      (opts as unknown as Record<symbol, unknown>)[QUEUED_ABORT] = handler.onQueued;
    dispatcher.dispatch(opts, handler);
  });
}

const abortReason = (signal: AbortSignal): unknown =>
  (signal.reason as unknown) ?? new errors.RequestAbortedError();

/**
 * undici's handler API (v8): the body's chunks kept as they come and joined once at the end, one
 * abort listener on the request's signal (this object, as its `handleEvent`) removed when done.
 */
class BufferingHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  /** Takes the request out of its dispatcher's queue while it waits for a connection. */
  private cancelQueued: ((reason: unknown) => void) | null = null;
  private reason: unknown = null;
  private statusCode = 0;
  private headers: Dispatcher.ResponseData['headers'] = {};
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private drainedDone: (() => void) | null = null;
  private settled = false;

  constructor(
    private readonly signal: AbortSignal,
    private readonly resolve: (response: BufferedResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    signal.addEventListener('abort', this);
  }

  readonly onQueued = (cancel: (reason: unknown) => void): void => {
    if (this.reason !== null) cancel(this.reason);
    else this.cancelQueued = cancel;
  };

  /** The signal aborted: the request stops wherever it is (queued, sent, reading). */
  handleEvent(): void {
    this.reason = abortReason(this.signal);
    if (this.controller !== null) this.controller.abort(this.reason as Error);
    else if (this.cancelQueued !== null) this.cancelQueued(this.reason);
    // Not started and no way out of its queue: it fails now, and aborts once a connection takes it.
    else this.onResponseError(null, this.reason as Error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.cancelQueued = null;
    if (this.reason !== null) return controller.abort(this.reason as Error);
    this.controller = controller;
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Dispatcher.ResponseData['headers'],
  ): void {
    // An informational answer (100 Continue...): the real one follows.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    if (!isRetriableStatus(statusCode)) return;
    // The failover reads only the status and headers of these: it goes on while the body drains.
    const drained = new Promise<void>((done) => (this.drainedDone = done));
    this.settled = true;
    this.resolve({ statusCode, headers, body: EMPTY, drained });
    if (Number(headers['content-length']) > DROP_LIMIT) controller.abort(new errors.RequestAbortedError());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.drainedDone === null) this.chunks.push(chunk);
    else if (this.bytes > DROP_LIMIT) controller.abort(new errors.RequestAbortedError());
  }

  onResponseEnd(): void {
    this.done();
    if (this.drainedDone !== null) return this.drainedDone();
    const { chunks } = this;
    // One chunk (most answers) is the body as it is: no copy.
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.bytes);
    this.settled = true;
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, err: Error): void {
    this.done();
    if (this.drainedDone !== null) return this.drainedDone();
    if (this.settled) return;
    this.settled = true;
    // An abort by the signal fails with its reason, whatever undici made of it.
    const error = this.reason ?? err;
    this.reject(this.statusCode === 0 ? error : new BrokenBody(this.statusCode, error));
  }

  private done(): void {
    this.signal.removeEventListener('abort', this);
  }
}
