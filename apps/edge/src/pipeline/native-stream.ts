import { type StreamWireFormat } from './stream-meter.js';
import { type RelayHooks } from './relay.js';

/**
 * Hooks of a native stream: events pass byte for byte. The only rewrite: when the gateway asked
 * for usage the client did not want, OpenAI puts `"usage":null` on every chunk; it is taken out,
 * so the client sees the chunks it would have seen without the gateway.
 */
export function nativeHooks(format: StreamWireFormat, stripNullUsage: boolean): RelayHooks {
  let events = 0;
  let upstreamFailed = false;
  return {
    event(raw, data) {
      if (data !== null) {
        events++;
        // The vendor's own error event is already in the client's format: it ends the stream.
        if (data.startsWith('{"error"') || data.startsWith('{"type":"error"')) upstreamFailed = true;
      }
      return stripNullUsage && data !== null && data.includes('"usage"') ? withoutNullUsage(raw) : raw;
    },
    end: () => '',
    // Responses events are numbered from 0; the error continues the sequence.
    fail: (message) => (upstreamFailed ? '' : nativeFailFrame(format, message, events)),
  };
}

/** The client format's own error event for a stream that broke after it began. */
export function nativeFailFrame(format: StreamWireFormat, message: string, sequence: number): string {
  switch (format) {
    case 'openai-chat':
      return `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code: 'upstream_error' } })}\n\n`;
    case 'openai-responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'upstream_error', message, param: null, sequence_number: sequence })}\n\n`;
    case 'anthropic':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
  }
}

/**
 * Removes a top-level `"usage":null` member from a raw chunk. A quote inside a JSON string is
 * always escaped, so an unescaped `"usage":null` is structural; chunks carry no nested `usage`.
 */
export function withoutNullUsage(raw: string): string {
  return raw.replace(NULL_USAGE, '');
}

const NULL_USAGE = /,\s*"usage"\s*:\s*null(?=\s*[,}])|"usage"\s*:\s*null\s*,/;
