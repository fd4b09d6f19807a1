import { mockId } from './ids.js';
import { isObject, stopList } from './params.js';
import { contentBlocks, messageUsage, type MessagesPlan } from './anthropic-plan.js';
import { buildMessagesStream } from './anthropic-stream.js';
import { messagesTooLong, tooLong } from './context-window.js';
import {
  firstWords,
  imageCount,
  promptWithImages,
  replyText,
  shapeReply,
  textOf,
  tokensForLength,
  tokensOf,
} from './text.js';
import { planToolCalls, type ToolForcing, type ToolSpec } from './tools.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';
import { validateMessagesRequest } from './validate-anthropic.js';

/** `POST /v1/messages`. */
export function messages({ body, behaviour }: EndpointInput): EndpointReply {
  const invalid = validateMessagesRequest(body);
  if (invalid) return invalid;
  const list = body.messages as JsonObject[];
  let chars = textOf(body.system).length;
  let lastUser = '';
  for (const m of list) {
    const text = textOf(m.content);
    chars += text.length;
    if (m.role === 'user' && !hasBlock(m.content, 'tool_result'))
      lastUser = promptWithImages(text, imageCount(m.content));
  }
  if (tooLong(behaviour, tokensForLength(chars)))
    return messagesTooLong(behaviour.contextWindow!, tokensForLength(chars));
  const last = list[list.length - 1];
  const lastIsUserText = last?.role === 'user' && !hasBlock(last.content, 'tool_result');
  const calls = planToolCalls(
    tools(body.tools),
    forcing(body.tool_choice),
    lastIsUserText ? lastUser : null,
    !(isObject(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true),
  );
  const reply =
    calls.length > 0
      ? shapeReply(`I'll use the ${calls.map((c) => c.name).join(' and ')} tool.`, { chunkCount: 2 })
      : shapeReply(replyText(lastUser, behaviour.reply, behaviour.chunkCount), {
          chunkCount: behaviour.chunkCount,
          maxTokens: body.max_tokens as number,
          stops: stopList(body.stop_sequences),
        });
  const searchTool = webSearchTool(body.tools);
  const searchCount =
    calls.length === 0 && lastIsUserText && /search/i.test(lastUser) && searchTool !== null
      ? Math.min(behaviour.webSearchCount, searchTool.maxUses)
      : 0;
  const searches = Array.from({ length: searchCount }, (_, i) => ({
    id: mockId('srvtoolu_01'),
    // Claude refines its query between searches; the mock numbers the later ones.
    query: i === 0 ? firstWords(lastUser, 8) : `${firstWords(lastUser, 8)} (${i + 1})`,
    url: `https://example.com/search-result-${i + 1}`,
    title: 'Mock search result',
  }));
  const thinking =
    isObject(body.thinking) && body.thinking.type === 'enabled'
      ? { text: `Thinking about: ${firstWords(lastUser, 8)}`, signature: mockId('sig_') }
      : null;
  const promptTokens = tokensForLength(chars);
  const cached = Math.min(behaviour.cachedTokens, promptTokens);
  const write1h = Math.min(behaviour.cacheWrite1hTokens, promptTokens - cached);
  const write5m = Math.min(behaviour.cacheWrite5mTokens, promptTokens - cached - write1h);
  const plan: MessagesPlan = {
    id: mockId('msg_01'),
    model: body.model as string,
    reply,
    thinking,
    toolCalls: calls.map((call) => ({ id: mockId('toolu_01'), call })),
    searches,
    inputTokens: promptTokens - cached - write5m - write1h,
    cacheReadTokens: cached,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    outputTokens:
      reply.tokens +
      (thinking ? tokensOf(thinking.text) : 0) +
      calls.reduce((sum, c) => sum + tokensOf(c.arguments) + 8, 0) +
      searches.reduce((sum, s) => sum + tokensOf(s.query) + 8, 0),
    stopReason:
      calls.length > 0
        ? 'tool_use'
        : reply.finish === 'length'
          ? 'max_tokens'
          : reply.finish === 'stop_sequence'
            ? 'stop_sequence'
            : 'end_turn',
  };
  if (body.stream === true) return { kind: 'stream', writes: buildMessagesStream(plan) };
  return {
    kind: 'json',
    status: 200,
    body: {
      id: plan.id,
      type: 'message',
      role: 'assistant',
      model: plan.model,
      content: contentBlocks(plan),
      stop_reason: plan.stopReason,
      stop_sequence: reply.stopSequence,
      usage: messageUsage(plan, plan.outputTokens),
    },
  };
}

function hasBlock(content: unknown, type: string): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && b.type === type);
}

/** Anthropic's web search server tool (any version) among the request's tools. */
/** The web search server tool of the request, with its `max_uses` (unbounded when absent). */
function webSearchTool(value: unknown): { maxUses: number } | null {
  if (!Array.isArray(value)) return null;
  const tool = value.find((t): t is JsonObject => isObject(t) && String(t.type).startsWith('web_search_'));
  if (tool === undefined) return null;
  return { maxUses: typeof tool.max_uses === 'number' ? tool.max_uses : Number.POSITIVE_INFINITY };
}

function tools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (t): t is JsonObject =>
        isObject(t) && (t.type === undefined || t.type === 'custom') && typeof t.name === 'string',
    )
    .map((t) => ({ name: t.name as string, schema: t.input_schema }));
}

function forcing(choice: unknown): ToolForcing {
  if (!isObject(choice)) return { kind: 'auto' };
  if (choice.type === 'none') return { kind: 'none' };
  if (choice.type === 'any') return { kind: 'any' };
  if (choice.type === 'tool' && typeof choice.name === 'string') return { kind: 'named', name: choice.name };
  return { kind: 'auto' };
}
