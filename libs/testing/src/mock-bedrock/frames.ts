import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/**
 * `application/vnd.amazon.eventstream` frames as Bedrock writes them (prelude, headers, payload,
 * both CRC32s, by `@smithy/eventstream-codec`). Payloads carry Bedrock's `p` padding member,
 * which hides the length of the content.
 */
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0';

const str = (value: string): MessageHeaders[string] => ({ type: 'string', value });

export function eventFrame(eventType: string, payload: Record<string, unknown>, index = 0): Buffer {
  const p = PADDING.slice(0, 1 + ((index * 7) % PADDING.length));
  return Buffer.from(
    codec.encode({
      headers: {
        ':event-type': str(eventType),
        ':content-type': str('application/json'),
        ':message-type': str('event'),
      },
      body: fromUtf8(JSON.stringify({ ...payload, p })),
    }),
  );
}

export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return Buffer.from(
    codec.encode({
      headers: {
        ':exception-type': str(exceptionType),
        ':content-type': str('application/json'),
        ':message-type': str('exception'),
      },
      body: fromUtf8(JSON.stringify({ message })),
    }),
  );
}

/** InvokeModelWithResponseStream: one model event, base64 in a `chunk` frame. */
export function chunkFrame(eventJson: string, index = 0): Buffer {
  return eventFrame('chunk', { bytes: Buffer.from(eventJson).toString('base64') }, index);
}
