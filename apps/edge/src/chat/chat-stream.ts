import { Readable } from 'node:stream';
import { openai } from '#libs/providers';
import { sseData, SseEventSplitter } from '#libs/protocol';
import { type RequestRecord } from '../logs/request-record.js';

export interface ChatRelayOptions {
  readonly clientWantsUsage: boolean;
  readonly record: RequestRecord;
  /** Called once when the relay ends: completed (upstream said [DONE]) or not. */
  readonly onEnd: (outcome: { completed: boolean; error: Error | null }) => void;
}

/**
 * Relays an OpenAI chat stream event by event, as it arrives. It reads usage from the trailing
 * usage chunk and drops that chunk when the client did not ask for it. Backpressure comes from
 * Readable.from: the upstream is only read as fast as the client takes the bytes.
 */
export function relayChatStream(upstream: AsyncIterable<Uint8Array>, opts: ChatRelayOptions): Readable {
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
            const kind = openai.classifyChatStreamData(data);
            if (kind.kind === 'done') completed = true;
            else if (kind.usage) opts.record.usage = kind.usage;
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
