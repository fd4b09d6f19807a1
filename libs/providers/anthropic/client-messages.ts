import {
  type ChatContentPart,
  type ChatMessage,
  type ChatToolCall,
  type ThinkingBlock,
} from '../src/chat.js';
import { invalid, isObject, unsupported, type Json } from './wire.js';

const TARGET = 'an OpenAI-format provider';

/**
 * Anthropic messages -> hub messages. A user turn's `tool_result` blocks become `role: 'tool'`
 * messages ahead of the rest of the turn (OpenAI wants them right after the calls); an
 * assistant turn's tool_use blocks become `tool_calls` and its thinking blocks `thinking_blocks`
 * plus `reasoning_content`. `cache_control` marks are caching hints and are dropped; citations
 * on text sent back are annotations of that text and are dropped with them.
 */
export function hubMessagesOf(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages)) throw invalid('messages', 'messages: Input should be a valid list.');
  if (messages.length === 0) throw invalid('messages', 'messages: at least one message is required.');
  const last = messages.length - 1;
  // A final assistant turn is a prefill Anthropic continues; OpenAI-format providers would
  // answer after it instead, which changes the answer.
  if (isObject(messages[last]) && messages[last].role === 'assistant') {
    throw unsupported(`messages.${last}.role (a final assistant turn, prefill)`, TARGET);
  }
  return messages.flatMap((m: unknown, i) => {
    const at = `messages.${i}`;
    if (!isObject(m)) throw invalid(at, `${at}: Input should be a valid dictionary.`);
    const blocks = blocksOf(m.content, `${at}.content`);
    switch (m.role) {
      case 'user':
        return userMessages(blocks, m.content, at);
      case 'assistant':
        return [assistantMessage(blocks, m.content, at)];
      case 'system':
        return [{ role: 'system', content: textParts(blocks, `${at}.content`) }];
      default:
        throw invalid(`${at}.role`, `${at}.role: Input should be 'user' or 'assistant'.`);
    }
  });
}

/** Content as a block list; a string is one text block. */
function blocksOf(content: unknown, at: string): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(at, `${at}: Input should be a valid string or list.`);
  return content.map((block: unknown, j) => {
    if (!isObject(block) || typeof block.type !== 'string') {
      throw invalid(`${at}.${j}`, `${at}.${j}: a content block needs a type.`);
    }
    return block;
  });
}

export function textParts(blocks: readonly Json[], at: string): string | ChatContentPart[] {
  const parts = blocks.map((b, j) => {
    if (b.type !== 'text') throw invalid(`${at}.${j}.type`, `${at}.${j}.type must be text here.`);
    return { type: 'text' as const, text: text(b, `${at}.${j}`) };
  });
  return parts.length === 1 ? parts[0]!.text : parts;
}

function text(block: Json, at: string): string {
  if (typeof block.text !== 'string') throw invalid(`${at}.text`, `${at}.text: Field required.`);
  return block.text;
}

function userMessages(blocks: Json[], raw: unknown, at: string): ChatMessage[] {
  const results: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  blocks.forEach((b, j) => {
    const where = `${at}.content.${j}`;
    if (b.type === 'tool_result') results.push(toolMessage(b, where));
    else if (b.type === 'text') parts.push({ type: 'text', text: text(b, where) });
    else if (b.type === 'image') parts.push(imagePart(b, where));
    else throw unsupported(`${where}.type (${String(b.type)})`, TARGET);
  });
  if (parts.length === 0) return results;
  const content = typeof raw === 'string' ? raw : parts;
  return [...results, { role: 'user', content }];
}

function imagePart(block: Json, at: string): ChatContentPart {
  const source = block.source;
  if (!isObject(source)) throw invalid(`${at}.source`, `${at}.source: Field required.`);
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string' || typeof source.data !== 'string') {
      throw invalid(`${at}.source`, `${at}.source needs media_type and data.`);
    }
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url' && typeof source.url === 'string')
    return { type: 'image_url', image_url: { url: source.url } };
  // `file` sources point into Anthropic's Files API, which other providers cannot read.
  throw unsupported(`${at}.source.type (${String(source.type)})`, TARGET);
}

/**
 * A chat tool message has no error flag: an `is_error` result keeps its meaning as text the
 * model reads, prefixed "Error: ". Images in a tool result have no chat equivalent (OpenAI tool
 * messages take text only): 400.
 */
function toolMessage(block: Json, at: string): ChatMessage {
  if (typeof block.tool_use_id !== 'string')
    throw invalid(`${at}.tool_use_id`, `${at}.tool_use_id: Field required.`);
  let body: string;
  if (block.content === undefined || block.content === null) body = '';
  else if (typeof block.content === 'string') body = block.content;
  else if (Array.isArray(block.content)) {
    body = blocksOf(block.content, `${at}.content`)
      .map((b, k) => {
        if (b.type !== 'text') throw unsupported(`${at}.content.${k}.type (${String(b.type)})`, TARGET);
        return text(b, `${at}.content.${k}`);
      })
      .join('');
  } else throw invalid(`${at}.content`, `${at}.content: Input should be a valid string or list.`);
  const content = block.is_error === true ? `Error: ${body}` : body;
  return { role: 'tool', tool_call_id: block.tool_use_id, content };
}

function assistantMessage(blocks: Json[], raw: unknown, at: string): ChatMessage {
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  const thinking: ThinkingBlock[] = [];
  blocks.forEach((b, j) => {
    const where = `${at}.content.${j}`;
    switch (b.type) {
      case 'text':
        texts.push(text(b, where));
        break;
      case 'tool_use':
        if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObject(b.input)) {
          throw invalid(where, `${where}: a tool_use block needs id, name and an input object.`);
        }
        calls.push({
          id: b.id,
          type: 'function',
          function: { name: b.name, arguments: JSON.stringify(b.input) },
        });
        break;
      case 'thinking':
        if (typeof b.thinking !== 'string')
          throw invalid(`${where}.thinking`, `${where}.thinking: Field required.`);
        thinking.push({ type: 'thinking', thinking: b.thinking, signature: String(b.signature ?? '') });
        break;
      case 'redacted_thinking':
        thinking.push({ type: 'redacted_thinking', data: String(b.data ?? '') });
        break;
      default:
        throw unsupported(`${where}.type (${String(b.type)})`, TARGET);
    }
  });
  const content =
    typeof raw === 'string'
      ? raw
      : texts.length === 0
        ? null
        : texts.length === 1
          ? texts[0]!
          : texts.map((t) => ({ type: 'text' as const, text: t }));
  const reasoning = thinking.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join('');
  return {
    role: 'assistant',
    content,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(thinking.length > 0 ? { reasoning_content: reasoning, thinking_blocks: thinking } : {}),
  };
}
