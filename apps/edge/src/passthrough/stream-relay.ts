import { Readable } from 'node:stream';
import { type openai } from '#libs/providers';
import { sseData, SseEventSplitter } from '#libs/protocol';
import { type RequestRecord } from '../logs/request-record.js';

export interface RelayOptions {
  readonly classify: (data: string) => openai.OpenAIStreamEvent;
  readonly clientWantsUsage: boolean;
  readonly record: RequestRecord;
  /** Called once when the relay ends: completed (upstream said [DONE] or sent its end event) or not. */
  readonly onEnd: (outcome: { completed: boolean; error: Error | null }) => void;
}

/**
 * Relays an OpenAI-format stream event by event, as it arrives. It reads usage where the
 * endpoint's classifier finds it and drops the usage chunk when the client did not ask for it.
 * Backpressure comes from Readable.from: the upstream is only read as fast as the client takes
 * the bytes.
 */
export function relayStream(upstream: AsyncIterable<Uint8Array>, opts: RelayOptions): Readable {
  async function* relay(): AsyncGenerator<string> {
    const splitter = new SseEventSplitter();
    let completed = false;
    let error: Error | null = null;
    try {
      for await (const chunk of upstream) {
        let out = '';
        for (const event of splitter.push(chunk)) {
          const data = sseData(event);
          if (data !== null) {
            const kind = opts.classify(data);
            if (kind.kind === 'done') completed = true;
            else {
              if (kind.usage) opts.record.usage = kind.usage;
              if (kind.kind === 'end') completed = true;
            }
            if (kind.kind === 'usage' && !opts.clientWantsUsage) continue;
          }
          out += event;
        }
        if (out.length > 0) {
          opts.record.markFirstByte();
          yield out;
        }
      }
      const rest = splitter.flush();
      if (rest.trim().length > 0) yield rest;
    } catch (err) {
      error = err as Error;
      // Headers are gone: the only way to tell an OpenAI client is an error event in the stream.
      yield `data: ${JSON.stringify({ error: { message: 'The upstream stream failed.', type: 'api_error', param: null, code: 'upstream_error' } })}\n\n`;
    } finally {
      opts.onEnd({ completed, error });
    }
  }
  return Readable.from(relay(), { objectMode: false });
}
