import { type ChatContentPart, type ChatMessage } from '../src/chat.js';
import { toolCallIdOf } from '../src/hub-fields.js';
import { callsToSend, hubTurns, systemTexts } from '../src/hub-turns.js';
import {
  type ConverseBlock,
  type ConverseImageBlock,
  type ConverseImageFormat,
  type ConverseMessage,
  type ConverseToolResultContent,
  invalid,
  isObject,
  unsupported,
} from './wire.js';

const IMAGE_FORMATS: Readonly<Record<string, ConverseImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export interface ConverseConversation {
  readonly system: readonly { readonly text: string }[];
  readonly messages: readonly ConverseMessage[];
}

/**
 * Hub messages -> Converse `system` + alternating turns, grouped by the shared rules
 * (`hubTurns`: system and developer messages hoisted into `system`, turns of one role merged, as
 * Converse requires alternation, a user turn's tool results first, as Claude requires of them).
 * A system message takes text only.
 */
export function conversationOf(messages: readonly ChatMessage[]): ConverseConversation {
  const { system, turns } = hubTurns<ConverseBlock, { text: string }>(messages, {
    check: (m, at) => {
      if (!isObject(m)) throw invalid(at, `${at} must be an object.`);
      if (m.name !== undefined) throw unsupported(`${at}.name`);
    },
    system: (m, at) =>
      systemTexts(
        contentBlocks(m.content, at),
        (b): b is { text: string } => 'text' in b,
        () => unsupported(`${at}.content (images in a system message)`),
      ),
    user: (m, at) => contentBlocks(m.content, at),
    assistant: assistantBlocks,
    tool: toolResult,
    isToolResult: (b) => 'toolResult' in b,
  });
  return { system, messages: turns.map(({ role, blocks }) => ({ role, content: blocks })) };
}

type PartBlock = { text: string } | { image: ConverseImageBlock };

function contentBlocks(content: ChatMessage['content'], at: string): PartBlock[] {
  if (content === null || content === undefined) return [];
  // Converse refuses an empty text block.
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `${at}.content must be a string or an array.`);
  return (content as readonly ChatContentPart[]).flatMap((part, j) => partBlock(part, `${at}.content[${j}]`));
}

function partBlock(part: ChatContentPart, at: string): PartBlock[] {
  if (!isObject(part)) throw invalid(at, `${at} must be an object.`);
  if (part.type === 'text' && typeof part.text === 'string')
    return part.text === '' ? [] : [{ text: part.text }];
  if (part.type === 'image_url' && isObject(part.image_url) && typeof part.image_url.url === 'string') {
    // `detail` is a resolution hint for OpenAI's tiler; Bedrock's models size images themselves.
    return [{ image: imageOf(part.image_url.url, `${at}.image_url.url`) }];
  }
  throw unsupported(`${at}.type`);
}

/** Converse takes image bytes (or an S3 location), never a URL it would fetch. */
function imageOf(url: string, at: string): ConverseImageBlock {
  const data = DATA_URL.exec(url);
  if (data === null) {
    throw invalid(at, `${at} must be a base64 data URL: a Bedrock provider takes image bytes, not URLs.`);
  }
  const format = IMAGE_FORMATS[data[1]!.toLowerCase()];
  if (format === undefined) {
    throw invalid(
      at,
      `${at}: Bedrock accepts image/png, image/jpeg, image/gif and image/webp, not ${data[1]}.`,
    );
  }
  return { format, source: { bytes: data[2]! } };
}

/**
 * Signed reasoning goes first, as Claude requires in a tool loop; reasoning text without a
 * signature cannot be sent back (it would be refused), so it is left out, as for Anthropic.
 */
function assistantBlocks(m: ChatMessage, at: string): ConverseBlock[] {
  const blocks: ConverseBlock[] = (m.thinking_blocks ?? []).map((b) =>
    b.type === 'thinking'
      ? { reasoningContent: { reasoningText: { text: b.thinking, signature: b.signature } } }
      : { reasoningContent: { redactedContent: b.data } },
  );
  blocks.push(...contentBlocks(m.content, at));
  for (const call of callsToSend(m, at, 'a Bedrock provider'))
    blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } });
  return blocks;
}

function toolResult(m: ChatMessage, at: string): ConverseBlock {
  const toolCallId = toolCallIdOf(m, at);
  const parts: ConverseToolResultContent[] =
    typeof m.content === 'string' ? [{ text: m.content }] : contentBlocks(m.content, at);
  // Converse refuses a tool result without content; an empty answer is an empty text.
  return { toolResult: { toolUseId: toolCallId, content: parts.length > 0 ? parts : [{ text: '' }] } };
}
