import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { type StreamDecoder } from '../src/adapter.js';
import { anthropicErrorTypeOf } from './mapping.js';
import { isObject, upstreamError } from './wire.js';

/**
 * Bedrock streams answer in `application/vnd.amazon.eventstream` frames, not SSE: each frame is a
 * prelude (total and header lengths, CRC32), typed headers (`:message-type`, `:event-type`,
 * `:exception-type`), a JSON payload and a CRC32 of the whole. The decoders below turn whole
 * frames into SSE events the folder's wire formats read, so the edge relays them like any stream.
 * The codec checks both CRCs; a corrupt frame throws (the stream is broken).
 */

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const PRELUDE_BYTES = 12;
/** The format's limit (16 MiB); a larger length is a corrupt prelude, not a frame to wait for. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Whole frames out of reads of any size. */
export class FrameSplitter {
  private pending: Uint8Array = new Uint8Array(0);

  push(bytes: Uint8Array): Message[] {
    let buf = this.pending.length === 0 ? bytes : concat(this.pending, bytes);
    const out: Message[] = [];
    while (buf.length >= PRELUDE_BYTES) {
      const total = new DataView(buf.buffer, buf.byteOffset, 4).getUint32(0, false);
      if (total < PRELUDE_BYTES + 4 || total > MAX_FRAME_BYTES)
        throw upstreamError(`Bedrock streamed a frame of impossible length ${total}.`);
      if (buf.length < total) break;
      out.push(decode(buf.subarray(0, total)));
      buf = buf.subarray(total);
    }
    this.pending = buf;
    return out;
  }

  /** Bytes of a frame not completed yet. */
  get buffered(): number {
    return this.pending.length;
  }
}

function decode(frame: Uint8Array): Message {
  try {
    return codec.decode(frame);
  } catch (err) {
    throw upstreamError(`Bedrock streamed a corrupt frame (${(err as Error).message}).`);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export function headerOf(message: Message, name: string): string | null {
  const h = message.headers[name];
  return h !== undefined && h.type === 'string' ? h.value : null;
}

/** One JSON text on one `data:` line: payloads are compact JSON, but a newline would split the event. */
function oneLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? JSON.stringify(JSON.parse(json)) : json;
}

function payloadText(message: Message): string {
  return message.body.length === 0 ? '{}' : oneLine(toUtf8(message.body));
}

/** A frame's exception as the name and the payload; `:message-type: error` frames too. */
function exceptionOf(message: Message): { name: string; payload: string } | null {
  const kind = headerOf(message, ':message-type');
  if (kind === 'exception')
    return {
      name: headerOf(message, ':exception-type') ?? 'unknownException',
      payload: payloadText(message),
    };
  if (kind === 'error') {
    const text = `${headerOf(message, ':error-code') ?? 'Error'}: ${headerOf(message, ':error-message') ?? ''}`;
    return { name: 'internalServerException', payload: JSON.stringify({ message: text }) };
  }
  return null;
}

abstract class FramesToSse implements StreamDecoder {
  private readonly frames = new FrameSplitter();

  push(bytes: Uint8Array): string {
    let out = '';
    for (const message of this.frames.push(bytes)) out += this.event(message);
    return out;
  }

  end(): void {
    if (this.frames.buffered > 0) throw upstreamError('The Bedrock stream ended inside a frame.');
  }

  protected abstract event(message: Message): string;
}

/**
 * ConverseStream: each event as `event: <eventType>` with the payload under its type's name
 * (`{"contentBlockDelta":{...}}`, the union's JSON form), so a payload names its own event; an
 * exception likewise under its name (`{"throttlingException":{"message":...}}`).
 */
class ConverseDecoder extends FramesToSse {
  protected event(message: Message): string {
    const exception = exceptionOf(message);
    const name = exception?.name ?? headerOf(message, ':event-type') ?? 'unknown';
    const payload = exception?.payload ?? payloadText(message);
    return `event: ${name}\ndata: {"${name}":${payload}}\n\n`;
  }
}

/**
 * InvokeModelWithResponseStream of an Anthropic model: each `chunk` event's payload is
 * `{"bytes": base64(<Anthropic event JSON>)}`; out comes the event Anthropic itself would have
 * sent (`event: <type>\ndata: <json>`). An exception becomes Anthropic's `error` event, which a
 * Messages client reads as the stream's failure.
 */
class InvokeMessagesDecoder extends FramesToSse {
  protected event(message: Message): string {
    const exception = exceptionOf(message);
    if (exception !== null) {
      const parsed: unknown = JSON.parse(exception.payload);
      const text = isObject(parsed) && typeof parsed.message === 'string' ? parsed.message : exception.name;
      const error = { type: 'error', error: { type: anthropicErrorTypeOf(exception.name), message: text } };
      return `event: error\ndata: ${JSON.stringify(error)}\n\n`;
    }
    if (headerOf(message, ':event-type') !== 'chunk') return '';
    const outer: unknown = JSON.parse(toUtf8(message.body));
    if (!isObject(outer) || typeof outer.bytes !== 'string')
      throw upstreamError('Bedrock streamed a chunk without bytes.');
    const inner = oneLine(Buffer.from(outer.bytes, 'base64').toString('utf8'));
    const type = /^\{"type":"([a-z_]+)"/.exec(inner)?.[1] ?? typeOf(inner);
    return `event: ${type}\ndata: ${inner}\n\n`;
  }
}

function typeOf(json: string): string {
  const parsed: unknown = JSON.parse(json);
  return isObject(parsed) && typeof parsed.type === 'string' ? parsed.type : 'unknown';
}

export const converseDecoder = (): StreamDecoder => new ConverseDecoder();
export const invokeMessagesDecoder = (): StreamDecoder => new InvokeMessagesDecoder();
