import { type ChatCompletion, type ChatCompletionMessage } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { stopReasonOf } from './mapping.js';
import { anthropicUsageOf } from './usage.js';
import { isObject, upstreamError, type Json } from './wire.js';

/** The message id: the upstream's when it is already Anthropic-shaped, else from the request id. */
export function messageIdOf(upstreamId: string, ctx: ClientContext): string {
  return upstreamId.startsWith('msg_') ? upstreamId : `msg_${ctx.requestId}`;
}

/**
 * Hub completion -> Anthropic Message. Block order is Anthropic's: thinking, text, tool_use.
 * Signed thinking comes from `thinking_blocks`; reasoning text without them (DeepSeek, vLLM
 * reasoning parsers) becomes a thinking block with an empty signature, so a client sees the
 * reasoning and, sending it back, reaches the same kind of provider, which ignores signatures.
 * A refusal becomes a text block with `stop_reason: 'refusal'`. `stop_sequence` is always null:
 * OpenAI-format providers do not say which stop sequence matched.
 */
export function messageOfCompletion(completion: ChatCompletion, ctx: ClientContext): JsonObject {
  const choice = completion.choices?.[0];
  if (!choice || !isObject(choice.message))
    throw upstreamError('The provider returned a completion without a choice.');
  const message = choice.message;
  const content: Json[] = [...thinkingBlocks(message), ...textBlocks(message)];
  for (const call of message.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments),
    });
  }
  const refused = typeof message.refusal === 'string' && message.refusal !== '';
  return {
    id: messageIdOf(completion.id ?? '', ctx),
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: refused ? 'refusal' : stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsageOf(completion.usage),
  };
}

function thinkingBlocks(message: ChatCompletionMessage): Json[] {
  if (message.thinking_blocks && message.thinking_blocks.length > 0)
    return message.thinking_blocks.map((b) => ({ ...b }));
  const reasoning = message.reasoning_content;
  return typeof reasoning === 'string' && reasoning !== ''
    ? [{ type: 'thinking', thinking: reasoning, signature: '' }]
    : [];
}

function textBlocks(message: ChatCompletionMessage): Json[] {
  const blocks: Json[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    blocks.push({ type: 'text', text: message.content });
  if (typeof message.refusal === 'string' && message.refusal !== '')
    blocks.push({ type: 'text', text: message.refusal });
  return blocks;
}

/**
 * Tool arguments -> the `input` object Anthropic clients parse. An empty string means no
 * arguments. Anything that is not a JSON object cannot be represented as `input` and is an
 * upstream error rather than a silently emptied call.
 */
export function toolInput(args: string): Json {
  if (args === '' || args === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw upstreamError('The provider returned tool call arguments that are not valid JSON.');
  }
  if (!isObject(parsed))
    throw upstreamError('The provider returned tool call arguments that are not a JSON object.');
  return parsed;
}
