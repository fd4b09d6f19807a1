import { type WireFormat } from '../src/adapter.js';
import { obj, parseObject } from '../src/content-parts.js';
import { messagesWire } from '../anthropic/index.js';
import { converseOutput } from './content.js';
import { converseDecoder, invokeMessagesDecoder } from './event-stream.js';
import { ConverseMeter } from './stream-meter.js';
import { ConverseTranscript } from './transcript.js';
import { usageFromConverse } from './usage.js';

const EXCEPTION_EVENT = /^\{"[A-Za-z]+Exception":/;

/**
 * Bedrock Converse: a Converse body; a stream of event-stream frames, decoded into one SSE event
 * each (`{"<eventType>": payload}`), usage on the last (`metadata`), always.
 */
export const converseWire: WireFormat = {
  name: 'bedrock-converse',
  usageOfBody: usageFromConverse,
  meter: () => new ConverseMeter(),
  outputText: (data) => {
    if (!data.startsWith('{"contentBlockDelta"')) return '';
    const d = obj(obj(obj(parseObject(data)).contentBlockDelta).delta);
    return str(d.text) + str(obj(d.reasoningContent).text) + str(obj(d.toolUse).input);
  },
  isErrorEvent: (data) => EXCEPTION_EVENT.test(data),
  failEvent: (message) =>
    `event: internalServerException\ndata: ${JSON.stringify({ internalServerException: { message } })}\n\n`,
  facts: (body) => ({
    model: null,
    finishReasons: typeof body.stopReason === 'string' ? [body.stopReason] : [],
  }),
  outputMessages: (body) => (body.output === undefined ? null : [converseOutput(body)]),
  transcript: () => new ConverseTranscript(),
  streamDecoder: converseDecoder,
};

/**
 * An Anthropic model through InvokeModel: Anthropic's Messages body and events, the events
 * carried in event-stream frames (decoded back into Anthropic's SSE events).
 */
export const invokeMessagesWire: WireFormat = Object.assign({}, messagesWire, {
  name: 'bedrock-invoke-messages',
  streamDecoder: invokeMessagesDecoder,
});

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
