import { messageUsage, type MessagesPlan } from './anthropic-plan.js';
import { eventFrame } from './sse.js';
import { argumentPieces } from './text.js';

/**
 * Anthropic's event stream: message_start, then per block content_block_start / deltas /
 * content_block_stop (a `ping` after the first start, as the API does), then message_delta with
 * the stop reason and the final output tokens, then message_stop.
 */
export function buildMessagesStream(plan: MessagesPlan): string[] {
  const ev = (type: string, fields: object): string => eventFrame(type, { type, ...fields });
  const start =
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
    }) +
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
    ev('ping', {});

  const writes = plan.reply.deltas.map((text) =>
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
  );
  let closing = ev('content_block_stop', { index: 0 });
  const call = plan.toolCall;
  if (call) {
    closing += ev('content_block_start', {
      index: 1,
      content_block: { type: 'tool_use', id: plan.toolUseId, name: call.name, input: {} },
    });
    writes.push(closing);
    for (const partial_json of argumentPieces(call.arguments)) {
      writes.push(ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json } }));
    }
    closing = ev('content_block_stop', { index: 1 });
  }
  closing +=
    ev('message_delta', {
      delta: { stop_reason: plan.stopReason, stop_sequence: plan.reply.stopSequence },
      usage: {
        input_tokens: plan.inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: plan.cacheReadTokens,
        output_tokens: plan.outputTokens,
      },
    }) + ev('message_stop', {});

  if (writes.length === 0) return [start + closing];
  writes[0] = start + writes[0];
  writes[writes.length - 1] += closing;
  return writes;
}
