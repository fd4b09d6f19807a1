import { GatewayError, sseData, SseEventSplitter } from '#libs/protocol';
import { type StreamMeter } from '#libs/providers';
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
export interface RelayOwner {
  /** Bytes are about to reach the client (each write says so; the first one counts). */
  firstByte(): void;
  /** `completed`: the upstream finished its stream and nothing broke relaying it. */
  relayEnded(completed: boolean): void;
}

const BROKEN = 'The upstream stream failed before it completed.';

/**
 * Relays an upstream SSE stream as it arrives: every upstream read becomes at most one write, so
 * deltas are never held back. The meter reads usage and the end of the stream; the sampler keeps
 * enough to estimate the output of a cut stream. Backpressure comes from the consumer
 * (`Readable.from`): the upstream is read only as fast as the client takes the bytes.
 */
export async function* relay(
  upstream: AsyncIterable<Uint8Array>,
  opts: RelayOptions,
): AsyncGenerator<string> {
  const { meter, sampler, hooks, owner } = opts;
  const splitter = new SseEventSplitter();
  let error: Error | null = null;
  try {
    try {
      await opts.markerWritten;
      for await (const chunk of upstream) {
        let out = '';
        for (const event of splitter.push(chunk)) {
          const data = sseData(event);
          if (data !== null) {
            sampler.push(data);
            if (!meter.see(data)) continue;
          }
          try {
            out += hooks.event(event, data);
          } catch (err) {
            // The events before the one a translator choked on still reach the client first.
            if (out.length > 0) {
              owner.firstByte();
              yield out;
            }
            throw err;
          }
        }
        if (out.length > 0) {
          owner.firstByte();
          yield out;
        }
      }
    } catch (err) {
      error = err as Error;
    }
    if (error === null && meter.completed) {
      const tail = hooks.end();
      if (tail.length > 0) yield tail;
    } else {
      // Headers are gone: the only way left to tell the client is an error event in its format.
      // A translator's GatewayError carries the upstream's own words (its in-stream error event).
      const failure = hooks.fail(error instanceof GatewayError ? error.message : BROKEN);
      if (failure.length > 0) yield failure;
    }
  } catch (err) {
    // A translator choking on the upstream's events: the same broken-stream ending.
    error ??= err as Error;
    const failure = hooks.fail(BROKEN);
    if (failure.length > 0) yield failure;
  } finally {
    owner.relayEnded(error === null && meter.completed);
  }
}
