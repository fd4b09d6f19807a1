import { mockId, unixSeconds } from './ids.js';
import { openAIError } from './errors.js';
import { completionBody, streamWrites, type ChatPlan } from './openai-chat-output.js';
import {
  isObject,
  openAIInt,
  openAIMissing,
  openAIModel,
  openAIUnrecognized,
  stopList,
  unknownField,
  type Check,
} from './params.js';
import { imageCount, promptWithImages, replyText, shapeReply, textOf, tokensForLength } from './text.js';
import { planToolCalls, type ToolForcing, type ToolSpec } from './tools.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';

const PARAMS = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** `POST /v1/chat/completions`. */
export function chatCompletions({ body, behaviour, flavour }: EndpointInput): EndpointReply {
  const invalid = validate(body);
  if (invalid) return invalid;
  if (flavour === 'perplexity' && Array.isArray(body.tools) && body.tools.length > 0) {
    // Sonar models have no tool calling.
    return openAIError(400, 'Tool calling is not supported for this model.', 'invalid_request_error', {
      param: 'tools',
    });
  }
  const messages = body.messages as JsonObject[];
  let promptChars = 0;
  let lastUser = '';
  for (const m of messages) {
    const text = textOf(m.content);
    promptChars += text.length;
    if (m.role === 'user') lastUser = promptWithImages(text, imageCount(m.content));
  }
  const last = messages[messages.length - 1];
  const plan: ChatPlan = {
    id: mockId('chatcmpl-'),
    created: unixSeconds(),
    model: body.model as string,
    n: typeof body.n === 'number' ? body.n : 1,
    promptTokens: tokensForLength(promptChars),
    cachedTokens: behaviour.cachedTokens,
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

function validate(body: JsonObject): Check {
  const unknown = unknownField(body, PARAMS);
  if (unknown !== null) return openAIUnrecognized(unknown);
  const model = openAIModel(body);
  if (model) return model;
  if (body.messages === undefined) return openAIMissing('messages');
  if (!Array.isArray(body.messages)) {
    return openAIError(
      400,
      "Invalid type for 'messages': expected an array of objects.",
      'invalid_request_error',
      { param: 'messages', code: 'invalid_type' },
    );
  }
  if (body.messages.length === 0) {
    return openAIError(
      400,
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'invalid_request_error',
      { param: 'messages', code: 'empty_array' },
    );
  }
  const roles = validateMessages(body.messages);
  if (roles) return roles;
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return openAIError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      { param: 'stream_options' },
    );
  }
  return (
    openAIInt(body, 'n', 1, 128) ??
    openAIInt(body, 'max_tokens', 1) ??
    openAIInt(body, 'max_completion_tokens', 1)
  );
}

/** Roles, and the pairing of assistant `tool_calls` with `tool` answers (a classic translation bug). */
function validateMessages(messages: unknown[]): Check {
  let pending: Set<string> | null = null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = isObject(m) ? m.role : undefined;
    if (!isObject(m) || typeof role !== 'string' || !ROLES.has(role)) {
      return openAIError(
        400,
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        'invalid_request_error',
        { param: `messages[${i}].role`, code: 'invalid_value' },
      );
    }
    if (role === 'tool') {
      if (!pending || !pending.delete(String(m.tool_call_id))) {
        return openAIError(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          'invalid_request_error',
          { param: `messages.[${i}].role` },
        );
      }
      continue;
    }
    if (pending && pending.size > 0) return unansweredToolCalls(pending);
    pending =
      role === 'assistant' && Array.isArray(m.tool_calls)
        ? new Set(m.tool_calls.map((c) => String((c as JsonObject).id)))
        : null;
  }
  return pending && pending.size > 0 ? unansweredToolCalls(pending) : null;
}

function unansweredToolCalls(ids: Set<string>): Check {
  return openAIError(
    400,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...ids].join(', ')}`,
    'invalid_request_error',
    { param: 'messages' },
  );
}

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
