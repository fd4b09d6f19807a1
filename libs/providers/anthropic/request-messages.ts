import { type ChatContentPart, type ChatMessage } from '../src/chat.js';
import { toolCallIdOf } from '../src/hub-fields.js';
import { callsToSend, hubTurns, systemTexts } from '../src/hub-turns.js';
import {
  type AnthropicBlock,
  type AnthropicImageBlock,
  type AnthropicMessage,
  type AnthropicTextBlock,
  invalid,
  isObject,
  unsupported,
} from './wire.js';

const TARGET = 'an Anthropic provider';
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export interface AnthropicConversation {
  readonly system: readonly AnthropicTextBlock[];
  readonly messages: readonly AnthropicMessage[];
}

/**
 * Hub messages -> Anthropic `system` + alternating turns, grouped by the shared rules
 * (`hubTurns`: system and developer messages hoisted into `system`, where Anthropic takes
 * instructions, tool results first in a user turn, turns of one role merged). A system message
 * takes text only.
 */
export function conversationOf(messages: readonly ChatMessage[]): AnthropicConversation {
  const { system, turns } = hubTurns<AnthropicBlock, AnthropicTextBlock>(messages, {
    check: (m, at) => {
      if (m.name !== undefined) throw unsupported(`${at}.name`, TARGET);
    },
    system: (m, at) =>
      systemTexts(
        contentBlocks(m.content, at),
        (b): b is AnthropicTextBlock => b.type === 'text',
        () => unsupported(`${at}.content (images in a system message)`, TARGET),
      ),
    user: (m, at) => contentBlocks(m.content, at),
    assistant: assistantBlocks,
    tool: toolResult,
    isToolResult: (b) => b.type === 'tool_result',
  });
  return { system, messages: turns.map(({ role, blocks }) => ({ role, content: blocks })) };
}

function contentBlocks(content: ChatMessage['content'], at: string): AnthropicBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `${at}.content must be a string or an array.`);
  return (content as readonly ChatContentPart[]).map((part, j) => partBlock(part, `${at}.content[${j}]`));
}

function partBlock(part: ChatContentPart, at: string): AnthropicBlock {
  if (!isObject(part)) throw invalid(at, `${at} must be an object.`);
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.type === 'image_url' && isObject(part.image_url) && typeof part.image_url.url === 'string') {
    // `detail` is a resolution hint for OpenAI's tiler; Anthropic sizes images itself.
    return imageBlock(part.image_url.url, `${at}.image_url.url`);
  }
  throw unsupported(`${at}.type`, TARGET);
}

export function imageBlock(url: string, at: string): AnthropicImageBlock {
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase();
    if (!IMAGE_TYPES.has(mediaType)) {
      throw invalid(
        at,
        `${at}: Anthropic accepts image/jpeg, image/png, image/gif and image/webp, not ${mediaType}.`,
      );
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2]! } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid(at, `${at} must be an http(s) URL or a base64 data URL.`);
}

/**
 * Signed thinking blocks go first, as Anthropic requires in a tool loop. Reasoning text without
 * a signature cannot be sent back (Anthropic verifies signatures, and drops earlier turns'
 * thinking from the context anyway), so it is left out: the model never saw it as input.
 */
function assistantBlocks(m: ChatMessage, at: string): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [...(m.thinking_blocks ?? [])];
  blocks.push(...contentBlocks(m.content, at));
  for (const call of callsToSend(m, at, TARGET))
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  return blocks;
}

function toolResult(m: ChatMessage, at: string): AnthropicBlock {
  const toolCallId = toolCallIdOf(m, at);
  // Anthropic tool results take text and images, all a hub content part can hold.
  const content =
    typeof m.content === 'string'
      ? m.content
      : (contentBlocks(m.content, at) as (AnthropicTextBlock | AnthropicImageBlock)[]);
  return { type: 'tool_result', tool_use_id: toolCallId, content };
}
