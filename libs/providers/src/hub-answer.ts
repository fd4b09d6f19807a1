import {
  type ChatCompletionMessage,
  type ChatFinishReason,
  type ChatToolCall,
  type ThinkingBlock,
} from './chat.js';
import { upstreamError } from './translation-errors.js';

/**
 * Pieces of a hub completion read from a Claude-style answer (Anthropic Messages, Converse): the
 * same content blocks, in different wrappers, make the same hub message.
 */

/**
 * A vendor's stop reason -> the hub's, by the vendor's table; none yet (a stream's early events)
 * is null. A reason the table does not know is an upstream error naming it (`unknown`: "Bedrock
 * returned an unknown stopReason"), rather than a guess that could tell a client a cut answer ended.
 */
export function finishReasonIn(
  stop: unknown,
  reasons: Readonly<Record<string, ChatFinishReason>>,
  unknown: string,
): ChatFinishReason | null {
  if (stop === null || stop === undefined) return null;
  if (typeof stop === 'string' && Object.hasOwn(reasons, stop)) return reasons[stop]!;
  throw upstreamError(`${unknown}: ${String(stop)}.`);
}

/** A tool call of an answer: the input object re-serialised as the hub's arguments text. */
export function hubToolCall(id: unknown, name: unknown, input: unknown): ChatToolCall {
  return {
    id: String(id),
    type: 'function',
    function: { name: String(name), arguments: JSON.stringify(input ?? {}) },
  };
}

/**
 * The assistant message of an answer's blocks: texts joined into `content` (null when none), tool
 * calls, and thinking as `reasoning_content` (the readable text) plus `thinking_blocks` (whole,
 * signed, for the client to send back on the next turn). An empty part is left out.
 */
export function answerMessage(
  texts: readonly string[],
  calls: readonly ChatToolCall[],
  thinking: readonly ThinkingBlock[],
): ChatCompletionMessage {
  const reasoning = thinking.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join('');
  return {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(thinking.length > 0 ? { reasoning_content: reasoning, thinking_blocks: thinking } : {}),
  };
}
