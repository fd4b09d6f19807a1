import { type Adjustments } from '../src/adjustments.js';
import { type ChatContentPart, type ChatMessage } from '../src/chat.js';
import { toolCallIdOf } from '../src/hub-fields.js';
import { callsToSend, hubTurns } from '../src/hub-turns.js';
import { type GeminiContent, type GeminiPart } from './wire.js';
import { decodeCallId, invalid, isObject, TARGET, unsupported } from './mapping.js';

export interface GeminiConversation {
  readonly systemInstruction?: GeminiContent;
  readonly contents: readonly GeminiContent[];
}

/**
 * Image types Gemini reads (its image-understanding guide: PNG, JPEG, WEBP, HEIC, HEIF); GIF and
 * the rest are refused by Google, so here with the field named. `image/jpg` is JPEG misnamed.
 */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/webp': 'image/webp',
  'image/heic': 'image/heic',
  'image/heif': 'image/heif',
};
const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
};
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * Hub messages -> Gemini `systemInstruction` + `contents`, grouped by the shared rules
 * (`hubTurns`): system and developer messages go to `systemInstruction` in order (Gemini takes
 * instructions only there); tool results become `functionResponse` parts of a `user` turn, first
 * in it; consecutive turns of one role are merged; assistant turns become role `model`. Reasoning sent back is dropped and recorded: Gemini
 * reads no reasoning text back, it keeps a turn's reasoning in the thought signatures.
 */
export function conversationOf(messages: readonly ChatMessage[], adjust: Adjustments): GeminiConversation {
  const callNames = new Map<string, string>();
  const { system, turns } = hubTurns<GeminiPart, GeminiPart>(messages, {
    check: (m, at) => {
      if (!isObject(m)) throw invalid(at, `${at} must be an object.`);
      if (m.name !== undefined && m.name !== null) throw unsupported(`${at}.name`);
    },
    system: (m, at) => contentParts(m.content, at, 'a system message'),
    user: (m, at) => contentParts(m.content, at, null),
    assistant: (m, at) => assistantParts(m, at, callNames, adjust),
    tool: (m, at) => toolResponse(m, at, callNames),
    // Function responses answer the model's last turn: before any text in their user turn.
    isToolResult: (p) => p.functionResponse !== undefined,
  });
  return {
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    contents: turns.map(({ role, blocks }): GeminiContent => ({
      role: role === 'assistant' ? 'model' : 'user',
      parts: blocks,
    })),
  };
}

/** Text and image parts; `noImages` names where images are refused. Empty texts are left out (Google refuses them). */
function contentParts(content: ChatMessage['content'], at: string, noImages: string | null): GeminiPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `${at}.content must be a string or an array.`);
  return (content as readonly ChatContentPart[]).flatMap((part, j): GeminiPart[] => {
    const where = `${at}.content[${j}]`;
    if (!isObject(part)) throw invalid(where, `${where} must be an object.`);
    if (part.type === 'text' && typeof part.text === 'string')
      return part.text === '' ? [] : [{ text: part.text }];
    if (part.type === 'image_url' && isObject(part.image_url) && typeof part.image_url.url === 'string') {
      if (noImages !== null) throw unsupported(`${where} (images in ${noImages})`);
      // `detail` is a resolution hint for OpenAI's tiler; Gemini sizes images itself.
      return [imagePart(part.image_url.url, `${where}.image_url.url`)];
    }
    throw unsupported(`${where}.type`);
  });
}

/**
 * A base64 data URL travels inline; an https URL as `fileData`, which Google fetches itself
 * (public and signed URLs, and its Files API's URIs). Its type comes from the file extension when
 * there is one; otherwise Google reads the type of what it fetched.
 */
export function imagePart(url: string, at: string): GeminiPart {
  const data = DATA_URL.exec(url);
  if (data) {
    const mimeType = IMAGE_TYPES[data[1]!.toLowerCase()];
    if (!mimeType) {
      throw invalid(
        at,
        `${at}: Gemini accepts image/png, image/jpeg, image/webp, image/heic and image/heif, not ${data[1]}.`,
      );
    }
    return { inlineData: { mimeType, data: data[2]! } };
  }
  const path = httpsPath(url);
  if (path === null) throw invalid(at, `${at} must be an https URL or a base64 data URL for ${TARGET}.`);
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  const mimeType = extension ? EXTENSION_TYPES[extension] : undefined;
  return { fileData: { fileUri: url, ...(mimeType ? { mimeType } : {}) } };
}

/** The path of an https URL; null for any other URL (Google fetches https only). */
function httpsPath(url: string): string | null {
  if (!/^https:\/\//i.test(url)) return null;
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

/** Text, then the calls, each with the thought signature its hub id carries back (mapping.ts). */
function assistantParts(
  m: ChatMessage,
  at: string,
  names: Map<string, string>,
  adjust: Adjustments,
): GeminiPart[] {
  if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '')
    adjust.drop(`${at}.reasoning_content`);
  if (Array.isArray(m.thinking_blocks) && m.thinking_blocks.length > 0) adjust.drop(`${at}.thinking_blocks`);
  const parts = contentParts(m.content, at, 'an assistant message');
  callsToSend(m, at, TARGET).forEach((call, j) => {
    const { id, signature } = decodeCallId(call.id);
    names.set(call.id, call.name);
    // Thinking models (Gemini 3) refuse a turn whose first call lacks its signature: a history
    // made by another model (or by a client that lost it) gets Google's documented placeholder.
    const thoughtSignature = signature ?? (j === 0 ? placeholderSignature(adjust) : undefined);
    parts.push({
      functionCall: { id, name: call.name, args: call.input },
      ...(thoughtSignature ? { thoughtSignature } : {}),
    });
  });
  return parts;
}

/**
 * Google's documented stand-in for a thought signature the history does not have ("Thought
 * signatures" guide: for conversations transferred from another model): the check is skipped.
 */
export const PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator';

function placeholderSignature(adjust: Adjustments): string {
  adjust.carried('carried tool calls without a thought signature with the placeholder signature');
  return PLACEHOLDER_SIGNATURE;
}

/**
 * A tool message -> `functionResponse`. Gemini wants the function's name, which the hub only has
 * on the call: it is looked up by id among the earlier assistant turns. The output goes in
 * `response.result`: the object when the content is a JSON object, else the text.
 */
function toolResponse(m: ChatMessage, at: string, names: ReadonlyMap<string, string>): GeminiPart {
  const toolCallId = toolCallIdOf(m, at);
  const name = names.get(toolCallId);
  if (name === undefined) {
    throw invalid(
      `${at}.tool_call_id`,
      `${at}.tool_call_id names no tool call of an earlier assistant message.`,
    );
  }
  const text = contentParts(m.content, at, 'a tool message')
    .map((p) => p.text ?? '')
    .join('');
  return {
    functionResponse: {
      id: decodeCallId(toolCallId).id,
      name,
      response: { result: jsonObject(text) ?? text },
    },
  };
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
