import { mockId } from './ids.js';
import { anthropicInvalid, isObject, stopList, unknownField, type Check } from './params.js';
import { contentBlocks, messageUsage, type MessagesPlan } from './anthropic-plan.js';
import { buildMessagesStream } from './anthropic-stream.js';
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

/** Anthropic rejects unknown top-level fields ("Extra inputs are not permitted"). */
const PARAMS = new Set([
  'max_tokens',
  'messages',
  'model',
  'cache_control',
  'container',
  'context_management',
  'diagnostics',
  'inference_geo',
  'mcp_servers',
  'metadata',
  'output_config',
  'output_format',
  'service_tier',
  'speed',
  'stop_sequences',
  'stream',
  'system',
  'temperature',
  'thinking',
  'tool_choice',
  'tools',
  'top_k',
  'top_p',
  'user_profile_id',
  'workspace_id',
]);

/** `POST /v1/messages`. */
export function messages({ body, behaviour }: EndpointInput): EndpointReply {
  const invalid = validate(body);
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
  const thinking =
    isObject(body.thinking) && body.thinking.type === 'enabled'
      ? { text: `Thinking about: ${firstWords(lastUser, 8)}`, signature: mockId('sig_') }
      : null;
  const promptTokens = tokensForLength(chars);
  const cached = Math.min(behaviour.cachedTokens, promptTokens);
  const plan: MessagesPlan = {
    id: mockId('msg_01'),
    model: body.model as string,
    reply,
    thinking,
    toolCalls: calls.map((call) => ({ id: mockId('toolu_01'), call })),
    inputTokens: promptTokens - cached,
    cacheReadTokens: cached,
    outputTokens:
      reply.tokens +
      (thinking ? tokensOf(thinking.text) : 0) +
      calls.reduce((sum, c) => sum + tokensOf(c.arguments) + 8, 0),
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

function validate(body: JsonObject): Check {
  const unknown = unknownField(body, PARAMS);
  if (unknown !== null) return anthropicInvalid(`${unknown}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string' || body.model === '') return anthropicInvalid('model: Field required');
  if (body.max_tokens === undefined) return anthropicInvalid('max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
    return anthropicInvalid('max_tokens: Input should be a valid integer');
  }
  if (body.max_tokens < 1) return anthropicInvalid('max_tokens: Input should be greater than or equal to 1');
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) {
    return anthropicInvalid('temperature: Input should be less than or equal to 1');
  }
  if (body.messages === undefined) return anthropicInvalid('messages: Field required');
  if (!Array.isArray(body.messages)) return anthropicInvalid('messages: Input should be a valid list');
  if (body.messages.length === 0) return anthropicInvalid('messages: at least one message is required');
  return validateMessages(body.messages);
}

/** Roles, non-empty content, and tool_use / tool_result pairing between consecutive turns. */
function validateMessages(list: unknown[]): Check {
  let openToolUses: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    const role = isObject(m) ? m.role : undefined;
    if (role === 'system') {
      return anthropicInvalid(
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
      );
    }
    if (!isObject(m) || (role !== 'user' && role !== 'assistant')) {
      return anthropicInvalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    const empty = m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
    if (empty && !(role === 'assistant' && i === list.length - 1)) {
      return anthropicInvalid(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    const badImage = blocks(m.content, 'image').findIndex((b) => !validImageSource(b.source));
    if (badImage >= 0) {
      return anthropicInvalid(
        `messages.${i}.content.${badImage}.image.source: Input tag does not match any of the expected tags: 'base64', 'url'`,
      );
    }
    const results = blocks(m.content, 'tool_result').map((b) => String(b.tool_use_id));
    const stray = results.find((id) => !openToolUses.includes(id));
    if (stray !== undefined) {
      return anthropicInvalid(
        `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
    const missing = openToolUses.filter((id) => !results.includes(id));
    if (missing.length > 0) {
      return anthropicInvalid(
        `messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    openToolUses = role === 'assistant' ? blocks(m.content, 'tool_use').map((b) => String(b.id)) : [];
  }
  return null;
}

/** `{type: 'base64', media_type, data}` or `{type: 'url', url}`, the two image sources. */
function validImageSource(source: unknown): boolean {
  if (!isObject(source)) return false;
  if (source.type === 'base64')
    return typeof source.media_type === 'string' && typeof source.data === 'string';
  return source.type === 'url' && typeof source.url === 'string';
}

function blocks(content: unknown, type: string): JsonObject[] {
  return Array.isArray(content) ? content.filter((b): b is JsonObject => isObject(b) && b.type === type) : [];
}

function hasBlock(content: unknown, type: string): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && b.type === type);
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
