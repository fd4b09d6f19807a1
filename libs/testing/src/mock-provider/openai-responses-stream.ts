import {
  isIncomplete,
  outputItem,
  outputText,
  responseObject,
  type ResponsesPlan,
} from './openai-responses-objects.js';
import { eventFrame } from './sse.js';
import { argumentPieces } from './text.js';
import { RESPONSES_TOO_LONG } from './context-window.js';

/**
 * The typed event stream of the Responses API: created, in_progress, item and part lifecycle,
 * deltas, then `response.completed` (or `response.incomplete`). Every event carries its type and
 * a `sequence_number`; the `event:` line repeats the type.
 */
export function buildResponsesStream(plan: ResponsesPlan): string[] {
  let seq = 0;
  const ev = (type: string, fields: object): string =>
    eventFrame(type, { type, sequence_number: seq++, ...fields });
  const at = { item_id: plan.itemId, output_index: 0 };
  const part = { ...at, content_index: 0 };

  let preamble =
    ev('response.created', { response: responseObject(plan, 'in_progress', []) }) +
    ev('response.in_progress', { response: responseObject(plan, 'in_progress', []) }) +
    ev('response.output_item.added', { output_index: 0, item: outputItem(plan, 'added') });

  const call = plan.toolCall;
  let pieces: string[];
  let closing: string;
  if (call) {
    pieces = argumentPieces(call.arguments).map((delta) =>
      ev('response.function_call_arguments.delta', { ...at, delta }),
    );
    closing = ev('response.function_call_arguments.done', {
      ...at,
      name: call.name,
      arguments: call.arguments,
    });
  } else {
    preamble += ev('response.content_part.added', { ...part, part: outputText('') });
    pieces = plan.reply.deltas.map((delta) =>
      ev('response.output_text.delta', { ...part, delta, logprobs: [] }),
    );
    closing =
      ev('response.output_text.done', { ...part, text: plan.reply.text, logprobs: [] }) +
      ev('response.content_part.done', { ...part, part: outputText(plan.reply.text) });
  }
  const final = outputItem(plan, 'final');
  closing += ev('response.output_item.done', { output_index: 0, item: final });
  const done = isIncomplete(plan) ? 'response.incomplete' : 'response.completed';
  closing += ev(done, { response: responseObject(plan, 'final', [final]) });

  if (pieces.length === 0) return [preamble + closing];
  pieces[0] = preamble + pieces[0];
  pieces[pieces.length - 1] += closing;
  return pieces;
}

/** What a failed response's `error` says, by its code. */
const FAILURES: Readonly<Record<'context_length_exceeded', string>> = {
  context_length_exceeded: RESPONSES_TOO_LONG,
};

/**
 * A stream that fails before any output, as the Responses API fails one it refuses once begun:
 * created, in_progress, then `response.failed` whose response has status `failed` and its error.
 */
export function buildFailedResponsesStream(plan: ResponsesPlan, code: keyof typeof FAILURES): string[] {
  let seq = 0;
  const ev = (type: string, fields: object): string =>
    eventFrame(type, { type, sequence_number: seq++, ...fields });
  const started = responseObject(plan, 'in_progress', []);
  const failed = { ...started, status: 'failed', error: { code, message: FAILURES[code] }, usage: null };
  return [
    ev('response.created', { response: started }) +
      ev('response.in_progress', { response: started }) +
      ev('response.failed', { response: failed }),
  ];
}
