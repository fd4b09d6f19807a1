import {
  type ChatChunk,
  type ChatDelta,
  type ChatToolCallDelta,
  type ChatUsage,
  type ThinkingBlock,
} from '../src/chat.js';
import { type ClientContext, type ClientStream, type SseFrame } from '../src/translation.js';
import { messageIdOf } from './client-response.js';
import { stopReasonOf } from './mapping.js';
import { anthropicUsageOf } from './usage.js';
import { ANTHROPIC_ERROR_TYPES, type AnthropicStopReason } from './wire.js';

type OpenBlock =
  | { readonly kind: 'text'; readonly index: number }
  | { readonly kind: 'tool'; readonly index: number }
  | { readonly kind: 'redacted'; readonly index: number }
  | { readonly kind: 'thinking'; readonly index: number; streamed: string };

const frame = (type: string, fields: Record<string, unknown> = {}): SseFrame => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});

/**
 * Hub chunks -> Anthropic's event sequence: `message_start`, then per content block
 * `content_block_start`, its deltas, `content_block_stop` (one block open at a time, indexes
 * counting up; switching kind closes the open block, each parallel tool call is its own
 * tool_use block), then `message_delta` (stop reason and usage) and `message_stop`. Deltas are
 * written as they arrive. The hub learns usage only from its last chunk, so `message_start`
 * carries zeros and `message_delta.usage` the exact totals, input counts included: the SDK's
 * MessageStream overwrites its snapshot with them, so `finalMessage()` has exact usage.
 */
export function messagesStreamFromHub(ctx: ClientContext): ClientStream {
  let started = false;
  let finished = false;
  let nextIndex = 0;
  let open: OpenBlock | null = null;
  let stop: AnthropicStopReason | null = null;
  let usage: ChatUsage | null = null;
  /** Hub tool-call index -> content block index. */
  const toolBlocks = new Map<number, number>();

  const start = (id: string): SseFrame[] => {
    if (started) return [];
    started = true;
    const zero = anthropicUsageOf(null);
    const message = {
      id: messageIdOf(id, ctx),
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: zero,
    };
    return [frame('message_start', { message })];
  };

  const close = (): SseFrame[] => {
    if (!open) return [];
    const index = open.index;
    open = null;
    return [frame('content_block_stop', { index })];
  };

  const begin = (block: OpenBlock, contentBlock: Record<string, unknown>): SseFrame[] => {
    const out = close();
    open = block;
    out.push(frame('content_block_start', { index: block.index, content_block: contentBlock }));
    return out;
  };

  const delta = (index: number, d: Record<string, unknown>): SseFrame =>
    frame('content_block_delta', { index, delta: d });

  const text = (value: string): SseFrame[] => {
    const out =
      open?.kind === 'text' ? [] : begin({ kind: 'text', index: nextIndex++ }, { type: 'text', text: '' });
    out.push(delta(open!.index, { type: 'text_delta', text: value }));
    return out;
  };

  const thinking = (value: string): SseFrame[] => {
    const out =
      open?.kind === 'thinking'
        ? []
        : begin(
            { kind: 'thinking', index: nextIndex++, streamed: '' },
            { type: 'thinking', thinking: '', signature: '' },
          );
    const block = open as Extract<OpenBlock, { kind: 'thinking' }>;
    block.streamed += value;
    out.push(delta(block.index, { type: 'thinking_delta', thinking: value }));
    return out;
  };

  /** A signed block ends its thinking: send what was not streamed yet, the signature, the stop. */
  const signed = (b: ThinkingBlock): SseFrame[] => {
    if (b.type === 'redacted_thinking') {
      const out = begin(
        { kind: 'redacted', index: nextIndex++ },
        { type: 'redacted_thinking', data: b.data },
      );
      return [...out, ...close()];
    }
    const streamed = open?.kind === 'thinking' ? open.streamed : null;
    const rest =
      streamed === null
        ? b.thinking
        : b.thinking.startsWith(streamed)
          ? b.thinking.slice(streamed.length)
          : '';
    const out = rest !== '' || streamed === null ? thinking(rest) : [];
    out.push(delta(open!.index, { type: 'signature_delta', signature: b.signature }));
    return [...out, ...close()];
  };

  const toolCall = (tc: ChatToolCallDelta): SseFrame[] => {
    let index = toolBlocks.get(tc.index);
    const out: SseFrame[] = [];
    if (index === undefined) {
      index = nextIndex++;
      toolBlocks.set(tc.index, index);
      const id = tc.id ?? `toolu_${ctx.requestId}_${tc.index}`;
      out.push(
        ...begin({ kind: 'tool', index }, { type: 'tool_use', id, name: tc.function?.name ?? '', input: {} }),
      );
    }
    // Arguments for an earlier call after a later one began (no mainstream provider interleaves)
    // still go to that call's block: the SDK accumulates by index, so nothing is lost.
    const args = tc.function?.arguments;
    if (args) out.push(delta(index, { type: 'input_json_delta', partial_json: args }));
    return out;
  };

  const onDelta = (d: ChatDelta): SseFrame[] => {
    const out: SseFrame[] = [];
    if (d.reasoning_content) out.push(...thinking(d.reasoning_content));
    for (const b of d.thinking_blocks ?? []) out.push(...signed(b));
    if (d.content) out.push(...text(d.content));
    if (d.refusal) {
      stop = 'refusal';
      out.push(...text(d.refusal));
    }
    for (const tc of d.tool_calls ?? []) out.push(...toolCall(tc));
    return out;
  };

  return {
    push(chunk: ChatChunk): SseFrame[] {
      if (finished) return [];
      const out = start(chunk.id ?? '');
      if (chunk.usage) usage = chunk.usage;
      // A messages client never asks for n > 1: only the first choice exists.
      const choice = chunk.choices?.find((c) => c.index === 0);
      if (!choice) return out;
      out.push(...onDelta(choice.delta ?? {}));
      if (choice.finish_reason) {
        if (stop !== 'refusal') stop = stopReasonOf(choice.finish_reason);
        out.push(...close());
      }
      return out;
    },
    end(): SseFrame[] {
      if (finished) return [];
      finished = true;
      const out = [...start(''), ...close()];
      out.push(
        frame('message_delta', {
          delta: { stop_reason: stop ?? 'end_turn', stop_sequence: null },
          usage: anthropicUsageOf(usage),
        }),
        frame('message_stop'),
      );
      return out;
    },
    fail(error: { readonly type: string; readonly message: string }): SseFrame[] {
      if (finished) return [];
      finished = true;
      const type = ANTHROPIC_ERROR_TYPES.has(error.type) ? error.type : 'api_error';
      return [frame('error', { error: { type, message: error.message } })];
    },
  };
}
