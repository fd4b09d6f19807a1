import { readFileSync } from 'node:fs';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { SseEventSplitter } from '#libs/protocol';
import { type SseEvent } from '../src/translation.js';

/** Test support for this folder's specs: fixtures and event-stream framing. Not exported by index.ts. */

export const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(fixture(name)) as T;

const codec = new EventStreamCodec(toUtf8, fromUtf8);

const str = (value: string): MessageHeaders[string] => ({ type: 'string', value });

/** One event frame as Bedrock writes it: `:event-type`, `:content-type`, `:message-type` and a JSON payload. */
export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': str(eventType),
      ':content-type': str('application/json'),
      ':message-type': str('event'),
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** An exception frame (`:message-type: exception`). */
export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': str(exceptionType),
      ':content-type': str('application/json'),
      ':message-type': str('exception'),
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** InvokeModelWithResponseStream's `chunk` frame around one Anthropic event. */
export function chunkFrame(event: unknown): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
  return eventFrame('chunk', { bytes, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGH' });
}

export function concatFrames(frames: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(frames);
}

/** Splits SSE text into events the way the edge does (event name + data). */
export function sseEvents(text: string): SseEvent[] {
  return new SseEventSplitter().push(new TextEncoder().encode(text)).map((raw) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of raw.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    return { event, data: data.join('\n') };
  });
}
