import { type ChatCompletion, type ChatToolCall, type ThinkingBlock } from '../src/chat.js';
import { answerMessage, hubToolCall } from '../src/hub-answer.js';
import { finishReasonOf } from './mapping.js';
import { hubUsageOf } from './usage.js';
import { isObject, upstreamError } from './wire.js';

/**
 * Converse answer -> hub completion. Text blocks are joined into `content`, `toolUse` blocks
 * become `tool_calls` (input re-serialised as the arguments string), `reasoningContent` becomes
 * `reasoning_content` plus `thinking_blocks` (signed, for the next turn). Converse sends no id,
 * model or timestamp: the id is a hash of the body (stable for one answer), the model and
 * `created` are left for the client translators to fill from the edge's.
 */
export function hubCompletionOfConverse(body: unknown): ChatCompletion {
  if (!isObject(body) || !isObject(body.output) || !isObject(body.output.message)) {
    throw upstreamError('Bedrock returned a body that is not a Converse answer.');
  }
  const content = body.output.message.content;
  if (!Array.isArray(content)) throw upstreamError('Bedrock returned a message without content.');
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  const thinking: ThinkingBlock[] = [];
  for (const block of content as unknown[]) {
    if (!isObject(block)) throw upstreamError('Bedrock returned a content block that is not an object.');
    if (typeof block.text === 'string') texts.push(block.text);
    else if (isObject(block.toolUse)) {
      const use = block.toolUse;
      calls.push(hubToolCall(use.toolUseId, use.name, use.input));
    } else if (isObject(block.reasoningContent)) {
      const r = block.reasoningContent;
      if (isObject(r.reasoningText)) {
        thinking.push({
          type: 'thinking',
          thinking: String(r.reasoningText.text ?? ''),
          signature: String(r.reasoningText.signature ?? ''),
        });
      } else if (typeof r.redactedContent === 'string') {
        thinking.push({ type: 'redacted_thinking', data: r.redactedContent });
      }
    } else {
      // Citations, documents and guardrail assessments answer inputs the hub never sends.
      const kind = Object.keys(block)[0] ?? 'empty';
      throw upstreamError(`Bedrock returned a ${kind} block, which has no chat equivalent.`);
    }
  }
  const message = answerMessage(texts, calls, thinking);
  return {
    id: answerIdOf(JSON.stringify(body)),
    object: 'chat.completion',
    created: 0,
    model: '',
    choices: [{ index: 0, message, finish_reason: finishReasonOf(body.stopReason) }],
    usage: hubUsageOf(body.usage),
  };
}

/** FNV-1a of the body: an id that is the same for the same answer, as clients expect one. */
function answerIdOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `bedrock-${(hash >>> 0).toString(16).padStart(8, '0')}`;
}
