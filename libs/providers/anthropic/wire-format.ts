import { type WireFormat } from '../src/adapter.js';
import { obj, parseObject } from '../src/content-parts.js';
import { anthropicOutput } from './content.js';
import { AnthropicMeter } from './stream-meter.js';
import { AnthropicTranscript } from './transcript.js';
import { usageFromMessage } from './usage.js';

/**
 * Anthropic Messages: a Message body; a stream of named events from `message_start` to
 * `message_stop`, usage on `message_start` and `message_delta`, always (never asked for).
 */
export const messagesWire: WireFormat = {
  name: 'anthropic-messages',
  usageOfBody: usageFromMessage,
  meter: () => new AnthropicMeter(),
  outputText: (data) => {
    const p = obj(parseObject(data));
    if (p.type !== 'content_block_delta') return '';
    const d = obj(p.delta);
    return str(d.text) + str(d.thinking) + str(d.partial_json);
  },
  isErrorEvent: (data) => data.startsWith('{"type":"error"'),
  failEvent: (message) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`,
  facts: (body) => ({
    model: typeof body.model === 'string' ? body.model : null,
    finishReasons: typeof body.stop_reason === 'string' ? [body.stop_reason] : [],
  }),
  outputMessages: (body) => (body.type === 'message' ? [anthropicOutput(body)] : null),
  transcript: () => new AnthropicTranscript(),
};

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
