import { type StreamOpening, type WireFormat } from '../src/adapter.js';
import { list, obj, parseObject } from '../src/content-parts.js';
import { choiceMessages, responsesOutput } from './content.js';
import { chatBodyFacts, responsesBodyFacts, responsesReason } from './facts.js';
import { usageFromChatCompletion, usageFromResponse } from './usage.js';
import { classifyChatStreamData, classifyResponsesStreamData, OpenAIMeter } from './stream-meter.js';
import { ChatTranscript, ResponsesTranscript } from './transcript.js';

/** OpenAI's own error event begins with the error object, in chat and Responses streams alike. */
const isErrorEvent = (data: string): boolean =>
  data.startsWith('{"error"') || data.startsWith('{"type":"error"');

/**
 * Chat completions and legacy completions: nameless `data:` chunks, usage on a last chunk with
 * `choices: []` (only when asked with `stream_options.include_usage`), then `[DONE]`.
 */
export const chatWire: WireFormat = {
  name: 'openai-chat',
  usageOfBody: usageFromChatCompletion,
  meter: (clientWantsUsage) => new OpenAIMeter(classifyChatStreamData, clientWantsUsage),
  outputText: (data) => chatText(obj(parseObject(data))),
  isErrorEvent,
  failEvent: (message) =>
    `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code: 'upstream_error' } })}\n\n`,
  facts: chatBodyFacts,
  outputMessages: (body) => (Array.isArray(body.choices) ? choiceMessages(body.choices) : null),
  transcript: () => new ChatTranscript(),
};

/** Responses: typed events numbered from 0, usage on the terminal `response.*` event, no `[DONE]`. */
export const responsesWire: WireFormat = {
  name: 'openai-responses',
  usageOfBody: usageFromResponse,
  meter: () => new OpenAIMeter(classifyResponsesStreamData, true),
  outputText: (data) => {
    const p = obj(parseObject(data));
    return typeof p.type === 'string' && p.type.endsWith('.delta') && typeof p.delta === 'string'
      ? p.delta
      : '';
  },
  isErrorEvent,
  // The error continues the events' sequence numbers.
  failEvent: (message, events) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'upstream_error', message, param: null, sequence_number: events })}\n\n`,
  facts: responsesBodyFacts,
  outputMessages: (body) =>
    body.object === 'response' ? [responsesOutput(body, responsesReason(body))] : null,
  transcript: () => new ResponsesTranscript(),
  opening: responsesOpening,
};

/** The events a Responses stream opens with, before anything is generated. */
const OPENING_TYPES = new Set(['response.created', 'response.queued', 'response.in_progress']);

/**
 * A Responses stream's opening: the API takes a request and opens its stream before it counts the
 * input, so a prompt too long for the window fails in-band, with `response.failed` and the error
 * code `context_length_exceeded` (HTTP 200).
 */
function responsesOpening(data: string): StreamOpening {
  const type = eventType(data);
  if (type !== null && OPENING_TYPES.has(type)) return 'wait';
  if (type !== 'response.failed') return 'go';
  const error = obj(obj(obj(parseObject(data)).response).error);
  return error.code === 'context_length_exceeded' ? 'too_long' : 'go';
}

/** The `type` of an event payload: read from its head when it leads (as OpenAI writes them), else parsed. */
function eventType(data: string): string | null {
  const head = /^\{"type":"([^"\\]+)"/.exec(data);
  if (head !== null) return head[1]!;
  const type = obj(parseObject(data)).type;
  return typeof type === 'string' ? type : null;
}

/** Chat deltas (content, reasoning, tool arguments) and completions' `text`. */
function chatText(p: Readonly<Record<string, unknown>>): string {
  let text = '';
  for (const raw of list(p.choices)) {
    const choice = obj(raw);
    text += str(choice.text);
    const d = obj(choice.delta);
    text += str(d.content) + str(d.reasoning_content) + str(d.refusal);
    for (const call of list(d.tool_calls)) {
      const fn = obj(obj(call).function);
      text += str(fn.name) + str(fn.arguments);
    }
  }
  return text;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
