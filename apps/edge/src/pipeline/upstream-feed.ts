import { Readable } from 'node:stream';

/** What hears an upstream's chunks, one call per read, and how it ends (once). */
export interface FeedSink {
  chunk(chunk: Uint8Array): void;
  /** The upstream ended whole (its bytes may still not make a completed stream). */
  end(): void;
  /** The upstream broke off (or was closed before its end). */
  fail(err: unknown): void;
}

/** An upstream body read by callbacks, paused and resumed by the client's pace. */
export interface UpstreamFeed {
  start(): void;
  pause(): void;
  resume(): void;
  /** Nothing more is wanted: the upstream is released (its connection closed unless it ended). */
  stop(): void;
}

/**
 * undici's body is a Readable: its own events and `read()`, with no async iterator, promise or
 * listener per read. Anything else (a stream read ahead or decoded on the way) by its iterator.
 */
export function upstreamFeed(upstream: AsyncIterable<Uint8Array>, sink: FeedSink): UpstreamFeed {
  return upstream instanceof Readable ? new ReadableFeed(upstream, sink) : new IteratorFeed(upstream, sink);
}

const PREMATURE_CLOSE = 'The upstream body closed before its end.';

/**
 * Reads a Readable with `read()` on 'readable', as its async iterator did: a read takes whatever
 * arrived since the last one, so the client's writes are the ones the generator relay made.
 * While paused nothing is read; the body's buffer fills and undici stops reading the socket.
 */
class ReadableFeed implements UpstreamFeed {
  private paused = false;
  private stopped = false;

  constructor(
    private readonly body: Readable,
    private readonly sink: FeedSink,
  ) {}

  start(): void {
    const { body, sink } = this;
    body.on('readable', this.flow);
    body.on('end', sink.end);
    // Stays attached after the end: a late error must not become an uncaught one.
    body.on('error', sink.fail);
    body.on('close', this.closed);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.flow();
  }

  stop(): void {
    this.stopped = true;
    this.body.destroy();
  }

  private readonly flow = (): void => {
    while (!this.paused && !this.stopped) {
      const chunk = this.body.read() as Uint8Array | null;
      if (chunk === null) return;
      this.sink.chunk(chunk);
    }
  };

  /** Destroyed without an error and without its end: as broken as an error (for-await said so too). */
  private readonly closed = (): void => {
    if (!this.body.readableEnded) this.sink.fail(new Error(PREMATURE_CLOSE));
  };
}

class IteratorFeed implements UpstreamFeed {
  private it: AsyncIterator<Uint8Array> | null = null;
  private paused = false;
  private reading = false;
  private stopped = false;

  constructor(
    private readonly upstream: AsyncIterable<Uint8Array>,
    private readonly sink: FeedSink,
  ) {}

  start(): void {
    this.it = this.upstream[Symbol.asyncIterator]();
    this.read();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    if (!this.reading && !this.stopped) this.read();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // Returning the iterator stops its source (a generator's finally, a Readable's destroy).
    void Promise.resolve(this.it?.return?.()).catch(() => undefined);
  }

  private read(): void {
    this.reading = true;
    this.it!.next().then(this.took, this.failed);
  }

  private readonly took = (next: IteratorResult<Uint8Array>): void => {
    this.reading = false;
    if (this.stopped) return;
    if (next.done === true) {
      this.stopped = true;
      return this.sink.end();
    }
    this.sink.chunk(next.value);
    if (!this.paused && !this.stopped) this.read();
  };

  private readonly failed = (err: unknown): void => {
    this.reading = false;
    if (this.stopped) return;
    this.stopped = true;
    this.sink.fail(err);
  };
}
