import {
  type ChatChunk,
  type ChatContentPart,
  type ChatDelta,
  type ChatMessage,
  type ChatRequest,
  type ChatRole,
  type ChatTool,
  type ChatToolChoice,
} from '../src/chat.js';
import {
  type ClientContext,
  type ClientFormat,
  type ClientStream,
  type SseFrame,
} from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { invalid, isObject, notTranslatable, optArray, optNumber, reqString } from './fields.js';
import { clientChatUsage } from './usage.js';

const ROLES: ReadonlySet<string> = new Set<ChatRole>(['system', 'developer', 'user', 'assistant', 'tool']);

/**
 * Chat fields the hub cannot carry to a provider of another format, each with the test that it
 * is in use. Sent to such a provider they would be dropped and the answer would change meaning
 * (fewer choices, no logprobs, no audio), so they are refused instead.
 */
const UNTRANSLATABLE: readonly (readonly [string, (v: unknown) => boolean])[] = [
  ['n', (v) => v !== 1],
  ['functions', () => true],
  ['function_call', () => true],
  ['logprobs', (v) => v === true],
  ['top_logprobs', (v) => v !== 0],
  ['audio', () => true],
  ['modalities', (v) => Array.isArray(v) && v.some((m) => m !== 'text')],
  ['logit_bias', (v) => isObject(v) && Object.keys(v).length > 0],
  ['web_search_options', () => true],
];

/**
 * The chat-completions client format. Chat is the hub, so `toHub` only checks the body and
 * narrows message content to what the hub carries; unknown top-level fields stay on the object
 * (an OpenAI-style provider forwards them, the others refuse them), and `fromHub` is the identity,
 * so vendor extras such as Perplexity's `citations` reach the client untouched.
 */
export const chatClient: ClientFormat = {
  name: 'chat',
  vendorHeaders: ['openai-beta'],

  toHub(body: JsonObject): ChatRequest {
    reqString(body, 'model');
    for (const [field, inUse] of UNTRANSLATABLE) {
      if (body[field] !== undefined && body[field] !== null && inUse(body[field]))
        throw notTranslatable(field);
    }
    const messages = optArray(body, 'messages');
    if (!messages) throw invalid('messages', "Missing required parameter: 'messages'.");
    for (const key of ['max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'seed'])
      optNumber(body, key);
    return {
      ...body,
      messages: messages.map((m, i) => chatMessage(m, `messages[${i}]`)),
      ...(body.tools != null && { tools: chatTools(body.tools) }),
      ...(body.tool_choice != null && { tool_choice: chatToolChoice(body.tool_choice) }),
    } as unknown as ChatRequest;
  },

  // Hubs built from vendors without timestamps (Anthropic) say `created: 0`, from vendors that
  // name no model (Bedrock's Converse) `model: ''`: a chat client is owed both, so the edge's
  // clock and the model the client asked for stand in.
  fromHub: (completion, ctx) =>
    ({
      ...completion,
      ...identity(completion, ctx),
      choices: completion.choices.map(({ message, ...choice }) => ({
        ...choice,
        message: withoutSearches(message),
      })),
      ...(completion.usage && { usage: clientChatUsage(completion.usage) }),
    }) as JsonObject,

  streamFromHub(ctx): ClientStream {
    const frame = (chunk: object): SseFrame => ({ data: JSON.stringify(chunk) });
    return {
      push(hubChunk: ChatChunk): SseFrame[] {
        const searched = hubChunk.choices.some((c) => c.delta.web_search_calls);
        if (searched && hubChunk.choices.every((c) => onlySearches(c.delta) && !c.finish_reason)) return [];
        const choices = searched
          ? hubChunk.choices.map(({ delta, ...c }) => ({ ...c, delta: withoutSearches(delta) }))
          : hubChunk.choices;
        const chunk = { ...hubChunk, ...identity(hubChunk, ctx), choices };
        const { usage, ...rest } = chunk;
        if (chunk.choices.length === 0 && usage)
          return ctx.includeUsage ? [frame({ ...chunk, usage: clientChatUsage(usage) })] : [];
        // OpenAI sends `"usage": null` on every chunk only when the client asked for usage.
        return [frame(ctx.includeUsage ? { ...rest, usage: null } : rest)];
      },
      end: () => [{ data: '[DONE]' }],
      fail: (error) => [
        frame({ error: { message: error.message, type: error.type, param: null, code: null } }),
      ],
    };
  },
};

/**
 * The id, timestamp and model of an answer or chunk, the edge's where the hub has none. The
 * OpenAI SDK's stream helper takes a chunk's members (the usage among them) only from chunks
 * with an id, so a stream without one would lose its usage.
 */
function identity(
  hub: { readonly id: string; readonly created: number; readonly model: string },
  ctx: ClientContext,
): { id: string; created: number; model: string } {
  return {
    id: hub.id || `chatcmpl-${ctx.requestId.replace(/[^A-Za-z0-9]/g, '')}`,
    created: hub.created || ctx.created,
    model: hub.model || ctx.model,
  };
}

/**
 * A provider-run search (hub `web_search_calls`, see chat.ts) has no chat field: a chat client
 * gets the answer written after it, as OpenAI's search models answer.
 */
function withoutSearches<T extends { readonly web_search_calls?: unknown }>(value: T): T {
  if (value.web_search_calls === undefined) return value;
  const { web_search_calls: _searches, ...rest } = value;
  return rest as T;
}

const onlySearches = (delta: ChatDelta): boolean => Object.keys(delta).every((k) => k === 'web_search_calls');

function chatMessage(raw: unknown, param: string): ChatMessage {
  if (!isObject(raw)) throw invalid(param, `'${param}' must be an object.`);
  const role = raw.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw invalid(`${param}.role`, `'${param}.role' must be one of ${[...ROLES].join(', ')}.`);
  }
  const content = raw.content;
  if (content === undefined || content === null || typeof content === 'string')
    return raw as unknown as ChatMessage;
  if (!Array.isArray(content))
    throw invalid(`${param}.content`, `'${param}.content' must be a string or an array.`);
  return {
    ...raw,
    content: content.map((p, j) => contentPart(p, `${param}.content[${j}]`)),
  } as unknown as ChatMessage;
}

function contentPart(raw: unknown, param: string): ChatContentPart {
  if (!isObject(raw)) throw invalid(param, `'${param}' must be an object.`);
  switch (raw.type) {
    case 'text':
      if (typeof raw.text !== 'string') throw invalid(`${param}.text`, `'${param}.text' must be a string.`);
      return raw as unknown as ChatContentPart;
    case 'refusal':
      // An assistant turn's refusal is text the model said; the hub carries it as such.
      if (typeof raw.refusal !== 'string')
        throw invalid(`${param}.refusal`, `'${param}.refusal' must be a string.`);
      return { type: 'text', text: raw.refusal };
    case 'image_url': {
      const image = raw.image_url;
      if (!isObject(image) || typeof image.url !== 'string') {
        throw invalid(`${param}.image_url.url`, `'${param}.image_url.url' must be a string.`);
      }
      return raw as unknown as ChatContentPart;
    }
    default:
      throw notTranslatable(
        `${param}.type`,
        `content parts of type '${String(raw.type)}' cannot be translated`,
      );
  }
}

function chatTools(raw: unknown): ChatTool[] {
  if (!Array.isArray(raw)) throw invalid('tools', "'tools' must be an array.");
  return raw.map((t, i) => {
    if (!isObject(t) || t.type !== 'function') {
      throw notTranslatable(`tools[${i}].type`, 'only function tools can be translated');
    }
    if (!isObject(t.function) || typeof t.function.name !== 'string') {
      throw invalid(`tools[${i}].function.name`, `'tools[${i}].function.name' must be a string.`);
    }
    return t as unknown as ChatTool;
  });
}

function chatToolChoice(raw: unknown): ChatToolChoice {
  if (raw === 'none' || raw === 'auto' || raw === 'required') return raw;
  if (
    isObject(raw) &&
    raw.type === 'function' &&
    isObject(raw.function) &&
    typeof raw.function.name === 'string'
  ) {
    return raw as unknown as ChatToolChoice;
  }
  throw notTranslatable(
    'tool_choice',
    "only 'none', 'auto', 'required' or a named function can be translated",
  );
}
