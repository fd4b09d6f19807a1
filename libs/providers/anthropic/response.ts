import {
  type ChatCompletion,
  type ChatCompletionMessage,
  type ChatToolCall,
  type ChatWebSearchCall,
  type ThinkingBlock,
} from '../src/chat.js';
import { answerMessage, hubToolCall } from '../src/hub-answer.js';
import { finishReasonOf } from './mapping.js';
import { hubUsageOf } from './usage.js';
import { isSearchResult, searchCallOf } from './web-search.js';
import { isObject, upstreamError } from './wire.js';

/**
 * Anthropic Message -> hub completion. Text blocks are joined into `content`, tool_use blocks
 * become `tool_calls` (input re-serialised as the arguments string), thinking blocks become
 * `reasoning_content` (their text) plus `thinking_blocks` (whole, signed, for the next turn),
 * `server_tool_use` blocks of the web search become `web_search_calls` (their results and the
 * text's citations have no hub field and are skipped; see web-search.ts).
 * `created` is 0: Anthropic sends no timestamp, and client translators take theirs from the
 * edge's clock (`ClientContext.created`).
 */
export function hubCompletionOf(body: unknown): ChatCompletion {
  if (!isObject(body) || body.type !== 'message' || !Array.isArray(body.content)) {
    throw upstreamError('Anthropic returned a body that is not a message.');
  }
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  const thinking: ThinkingBlock[] = [];
  const searches: ChatWebSearchCall[] = [];
  for (const block of body.content as unknown[]) {
    if (!isObject(block)) throw upstreamError('Anthropic returned a content block that is not an object.');
    if (isSearchResult(block.type)) continue;
    switch (block.type) {
      case 'text':
        texts.push(String(block.text ?? ''));
        break;
      case 'tool_use':
        calls.push(hubToolCall(block.id, block.name, block.input));
        break;
      case 'thinking':
        thinking.push({
          type: 'thinking',
          thinking: String(block.thinking ?? ''),
          signature: String(block.signature ?? ''),
        });
        break;
      case 'redacted_thinking':
        thinking.push({ type: 'redacted_thinking', data: String(block.data ?? '') });
        break;
      case 'server_tool_use':
        searches.push(searchCallOf(block, block.input));
        break;
      default:
        // Other server-tool blocks answer server tools the hub never sends.
        throw upstreamError(
          `Anthropic returned a ${String(block.type)} block, which has no chat equivalent.`,
        );
    }
  }
  const message: ChatCompletionMessage = {
    ...answerMessage(texts, calls, thinking),
    ...(searches.length > 0 ? { web_search_calls: searches } : {}),
  };
  return {
    id: String(body.id ?? ''),
    object: 'chat.completion',
    created: 0,
    model: String(body.model ?? ''),
    choices: [{ index: 0, message, finish_reason: finishReasonOf(body.stop_reason) }],
    usage: hubUsageOf(body.usage),
  };
}

/** `{type: 'error', error: {type, message}}` -> its message. */
export function anthropicErrorMessage(body: unknown): string | null {
  if (!isObject(body) || !isObject(body.error)) return null;
  const message = body.error.message;
  return typeof message === 'string' && message !== '' ? message : null;
}
