import {
  inputUsage,
  messageUsage,
  searchCallBlock,
  searchCitation,
  searchResultBlock,
  serverToolUse,
  type MessagesPlan,
} from './anthropic-plan.js';
import { eventFrame } from './sse.js';
import { argumentPieces, splitEvenly } from './text.js';

/**
 * Anthropic's event stream: message_start, then per block content_block_start / deltas /
 * content_block_stop (a `ping` after the first start, as the API does), then message_delta with
 * the stop reason and the final output tokens, then message_stop. Thinking streams as
 * thinking_delta pieces and one signature_delta; tool input as input_json_delta pieces.
 */
export function buildMessagesStream(plan: MessagesPlan): string[] {
  const ev = (type: string, fields: object): string => eventFrame(type, { type, ...fields });
  const writes: string[] = [];
  let pending =
    ev('message_start', {
      message: {
        id: plan.id,
        type: 'message',
        role: 'assistant',
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messageUsage(plan, 1),
      },
    }) + '';
  let index = 0;
  let pinged = false;
  /** One block: its start joins what is pending; each delta is a write of its own. */
  const block = (start: object, deltas: object[]): void => {
    pending += ev('content_block_start', { index, content_block: start });
    if (!pinged) {
      pending += ev('ping', {});
      pinged = true;
    }
    for (const delta of deltas) {
      writes.push(pending + ev('content_block_delta', { index, delta }));
      pending = '';
    }
    pending += ev('content_block_stop', { index });
    index++;
  };
  if (plan.thinking) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...splitEvenly(plan.thinking.text, 3).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: plan.thinking.signature },
    ]);
  }
  for (const search of plan.searches) {
    // The query streams like a tool's input; the results arrive whole in their block's start.
    const input = JSON.stringify({ query: search.query });
    block(
      searchCallBlock(search, {}),
      argumentPieces(input).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
    block(searchResultBlock(search), []);
  }
  const cited = plan.searches[0];
  block({ type: 'text', text: '' }, [
    ...plan.reply.deltas.map((text) => ({ type: 'text_delta', text })),
    ...(cited ? [{ type: 'citations_delta', citation: searchCitation(cited) }] : []),
  ]);
  for (const { id, call } of plan.toolCalls) {
    block(
      { type: 'tool_use', id, name: call.name, input: {} },
      argumentPieces(call.arguments).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
  }
  pending +=
    ev('message_delta', {
      delta: { stop_reason: plan.stopReason, stop_sequence: plan.reply.stopSequence },
      usage: { ...inputUsage(plan), output_tokens: plan.outputTokens, ...serverToolUse(plan) },
    }) + ev('message_stop', {});
  if (writes.length === 0) return [pending];
  writes[writes.length - 1] += pending;
  return writes;
}
