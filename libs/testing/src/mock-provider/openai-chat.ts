import { mockId, unixSeconds } from './ids.js';
import { chatTooLong, tooLong } from './context-window.js';
import { completionBody, streamWrites, type ChatPlan } from './openai-chat-output.js';
import { isObject, stopList } from './params.js';
import { imageCount, promptWithImages, replyText, shapeReply, textOf, tokensForLength } from './text.js';
import { planToolCalls, type ToolForcing, type ToolSpec } from './tools.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';
import { validateChatRequest } from './validate-openai-chat.js';

/** `POST /v1/chat/completions`. */
export function chatCompletions({ body, behaviour, flavour }: EndpointInput): EndpointReply {
  const invalid = validateChatRequest(body, flavour);
  if (invalid) return invalid;
  const messages = body.messages as JsonObject[];
  let promptChars = 0;
  let lastUser = '';
  for (const m of messages) {
    const text = textOf(m.content);
    promptChars += text.length;
    if (m.role === 'user') lastUser = promptWithImages(text, imageCount(m.content));
  }
  if (tooLong(behaviour, tokensForLength(promptChars)))
    return chatTooLong(behaviour.contextWindow!, tokensForLength(promptChars));
  const last = messages[messages.length - 1];
  const plan: ChatPlan = {
    id: mockId('chatcmpl-'),
    created: unixSeconds(),
    model: body.model as string,
    n: typeof body.n === 'number' ? body.n : 1,
    promptTokens: tokensForLength(promptChars),
    cachedTokens: behaviour.cachedTokens,
    cacheWriteTokens: behaviour.cacheWrite5mTokens + behaviour.cacheWrite1hTokens,
    audioOutputTokens: behaviour.audioOutputTokens,
    reply: shapeReply(replyText(lastUser, behaviour.reply, behaviour.chunkCount), {
      chunkCount: behaviour.chunkCount,
      maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
      stops: stopList(body.stop),
    }),
    toolCalls: planToolCalls(
      tools(body.tools),
      forcing(body.tool_choice),
      last?.role === 'user' ? lastUser : null,
      body.parallel_tool_calls !== false,
    ),
    extras: flavour === 'perplexity' ? PERPLEXITY_EXTRAS : {},
    flavour,
  };
  const includeUsage =
    !behaviour.omitUsage && isObject(body.stream_options) && body.stream_options.include_usage === true;
  return body.stream === true
    ? { kind: 'stream', writes: streamWrites(plan, includeUsage) }
    : { kind: 'json', status: 200, body: completionBody(plan) };
}

/** Perplexity's search answer fields, on the completion and on every chunk. */
const PERPLEXITY_EXTRAS = {
  citations: ['https://example.com/mock-source'],
  search_results: [{ title: 'Mock source', url: 'https://example.com/mock-source', date: '2026-01-01' }],
};

function tools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const out: ToolSpec[] = [];
  for (const t of value) {
    if (isObject(t) && isObject(t.function) && typeof t.function.name === 'string') {
      out.push({ name: t.function.name, schema: t.function.parameters });
    }
  }
  return out;
}

function forcing(choice: unknown): ToolForcing {
  if (choice === 'none') return { kind: 'none' };
  if (choice === 'required') return { kind: 'any' };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    return { kind: 'named', name: choice.function.name };
  }
  return { kind: 'auto' };
}
