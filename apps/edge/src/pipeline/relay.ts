import { GatewayError, sseData, SseEventSplitter } from '#libs/protocol';
import { type StreamMeter } from '#libs/providers';
import { type SseClient, type SseOwner } from './sse-writer.js';
import { type FeedSink, type UpstreamFeed, upstreamFeed } from './upstream-feed.js';
import { type OutputSampler } from './usage-estimate.js';

/** How one relay turns upstream events into the client's bytes. */
export interface RelayHooks {
  /** One whole upstream event (`raw`, with its `data:` payload or null): the client's bytes, '' for none. */
  event(raw: string, data: string | null): string;
  /** The upstream completed: whatever closes the client's stream. */
  end(): string;
  /** The upstream broke off after the stream began: the client format's own error event. */
  fail(message: string): string;
}

export interface RelayOptions {
  readonly meter: StreamMeter;
  readonly sampler: OutputSampler;
  readonly hooks: RelayHooks;
  /** Resolves once the stream's start marker left for Redis: no byte reaches the client before. */
  readonly markerWritten: Promise<void>;
  /** Told of the first byte out, and once of the end, however it ends (the client hanging up included). */
  readonly owner: RelayOwner;
}

/** Who hears how a relay goes: the request's lifecycle. */
export interface RelayOwner extends SseOwner {
  /** Bytes are about to reach the client (each write says so; the first one counts). */
  firstByte(): void;
  /** `completed`: the upstream finished its stream and nothing broke relaying it. */
  relayEnded(completed: boolean): void;
}

const BROKEN = 'The upstream stream failed before it completed.';

/**
 * Relays an upstream SSE stream as it arrives: every upstream read becomes at most one write, so
 * deltas are never held back. The meter reads usage and the end of the stream; the sampler keeps
 * enough to estimate the output of a cut stream. Backpressure: when the client's socket takes no
 * more, the upstream is paused until it drained, so the upstream is read only as fast as the
 * client takes the bytes. Nothing is read (nor written) before the start marker left.
 */
export function relay(upstream: AsyncIterable<Uint8Array>, client: SseClient, opts: RelayOptions): void {
  new Relay(upstream, client, opts).start();
}

/**
 * One relay's state, its callbacks made once: per upstream read there is no closure, promise or
 * array, only the strings of the events and the client's bytes.
 */
class Relay implements FeedSink {
  private readonly splitter = new SseEventSplitter();
  private readonly feed: UpstreamFeed;
  private reading = false;
  /** The relay's end was decided (its ending written, or the client gone): nothing more happens. */
  private done = false;
  private clientClosed = false;

  constructor(
    upstream: AsyncIterable<Uint8Array>,
    private readonly client: SseClient,
    private readonly opts: RelayOptions,
  ) {
    this.feed = upstreamFeed(upstream, this);
  }

  start(): void {
    this.client.on('close', this.clientClose);
    this.client.on('drain', this.drained);
    this.opts.markerWritten.then(this.begin, this.fail);
  }

  readonly chunk = (chunk: Uint8Array): void => {
    if (this.done) return;
    const { splitter, opts } = this;
    const { meter, sampler, hooks } = opts;
    let out = '';
    splitter.feed(chunk);
    for (let event = splitter.next(); event !== null; event = splitter.next()) {
      const data = sseData(event);
      if (data !== null) {
        sampler.push(data);
        if (!meter.see(data)) continue;
      }
      try {
        out += hooks.event(event, data);
      } catch (err) {
        // The events before the one a translator choked on still reach the client first.
        this.send(out);
        return this.finish(err, false);
      }
    }
    this.send(out);
  };

  readonly end = (): void => {
    this.finish(null, true);
  };

  readonly fail = (err: unknown): void => {
    this.finish(err, false);
  };

  /** The marker left: the upstream is read from now on (unless the client left meanwhile). */
  private readonly begin = (): void => {
    if (this.done) return;
    if (this.clientClosed) return this.left();
    this.reading = true;
    this.feed.start();
  };

  private send(out: string): void {
    if (out.length === 0) return;
    this.opts.owner.firstByte();
    if (!this.client.write(out)) this.feed.pause();
  }

  private readonly drained = (): void => {
    if (!this.done) this.feed.resume();
  };

  /**
   * The client's socket closed. Before the response finished, the client hung up: the owner stops
   * the upstream, and the relay ends at once, unless it still waits for the marker (it ends then,
   * so the end never comes before the marker).
   */
  private readonly clientClose = (): void => {
    if (this.client.writableFinished) return;
    this.clientClosed = true;
    this.opts.owner.clientGone();
    if (this.reading) this.left();
  };

  private left(): void {
    if (this.done) return;
    this.done = true;
    this.feed.stop();
    this.opts.owner.relayEnded(false);
  }

  /** The upstream ended, broke, or a translator threw: the client's ending, then the owner's end. */
  private finish(error: unknown, ended: boolean): void {
    if (this.done) return;
    this.done = true;
    if (!ended) this.feed.stop();
    const { meter, hooks, owner } = this.opts;
    let failed = error !== null;
    let tail: string;
    try {
      if (!failed && meter.completed) tail = hooks.end();
      // Headers are gone: the only way left to tell the client is an error event in its format.
      // A translator's GatewayError carries the upstream's own words (its in-stream error event).
      else tail = hooks.fail(error instanceof GatewayError ? error.message : BROKEN);
    } catch {
      // A translator choking on the upstream's events: the same broken-stream ending.
      failed = true;
      try {
        tail = hooks.fail(BROKEN);
      } catch {
        this.client.destroy();
        return owner.relayEnded(false);
      }
    }
    // A client gone while the marker was on its way (and the marker failed) hears nothing more.
    if (!this.clientClosed) {
      if (tail.length > 0) this.client.write(tail);
      this.client.end();
    }
    owner.relayEnded(!failed && meter.completed);
  }
}
