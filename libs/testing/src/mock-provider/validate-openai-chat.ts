/**
 * `POST /v1/chat/completions` request validation, per flavour, as each vendor answers it:
 * OpenAI's `{error: {message, type, param, code}}` 400 with its wording
 * (platform.openai.com/docs/api-reference/chat/create); Perplexity's Sonar API on top of that has
 * no tools and wants user and assistant turns to alternate after the system messages
 * (docs.perplexity.ai/api-reference/chat-completions-post: "After the (optional) system message,
 * user and assistant roles should alternate with user then assistant").
 *
 * Deliberately NOT rejected, because OpenAI accepts them: two tools with one name (OpenAI, unlike
 * Anthropic, does not check), consecutive user messages, an assistant message with `tool_calls`
 * and empty or absent `content`.
 */
import { openAIError } from './errors.js';
import { isObject, openAIInt, openAIModel, openAIUnrecognized, type Check } from './params.js';
import { functionName, validateChatMessages } from './validate-openai-chat-messages.js';
import type { Flavour, JsonObject } from './types.js';

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
const TOOL_CHOICES = new Set(['none', 'auto', 'required']);

export function validateChatRequest(body: JsonObject, flavour: Flavour): Check {
  for (const key in body) if (!PARAMS.has(key)) return openAIUnrecognized(key);
  return (
    openAIModel(body) ??
    validateChatMessages(body.messages) ??
    streamOptions(body) ??
    openAIInt(body, 'n', 1, 128) ??
    openAIInt(body, 'max_tokens', 1) ??
    openAIInt(body, 'max_completion_tokens', 1) ??
    (flavour === 'perplexity' ? perplexity(body) : (tools(body.tools) ?? toolChoice(body)))
  );
}

function streamOptions(body: JsonObject): Check {
  if (body.stream_options === undefined || body.stream_options === null || body.stream === true) return null;
  return invalid(
    "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    'stream_options',
  );
}

function tools(value: unknown): Check {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    return invalid("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
  if (value.length === 0) {
    return invalid(
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'tools',
      'empty_array',
    );
  }
  for (let i = 0; i < value.length; i++) {
    const tool = value[i];
    const at = `tools[${i}]`;
    if (!isObject(tool) || (tool.type !== 'function' && tool.type !== 'custom')) {
      return invalid(
        `Invalid value: '${String(isObject(tool) ? tool.type : tool)}'. Supported values are: 'function' and 'custom'.`,
        `${at}.type`,
        'invalid_value',
      );
    }
    const spec = tool.type === 'function' ? tool.function : tool.custom;
    if (!isObject(spec) || typeof spec.name !== 'string') return missing(`${at}.${String(tool.type)}.name`);
    const bad = functionName(spec.name, `${at}.${String(tool.type)}.name`);
    if (bad) return bad;
    if (tool.type === 'function' && spec.parameters !== undefined && !isObject(spec.parameters)) {
      return invalid(
        `Invalid type for '${at}.function.parameters': expected an object.`,
        `${at}.function.parameters`,
        'invalid_type',
      );
    }
  }
  return null;
}

function toolChoice(body: JsonObject): Check {
  const choice = body.tool_choice;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (choice !== undefined && choice !== null && !hasTools) {
    return invalid(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  }
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null && !hasTools) {
    return invalid(
      "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
      'parallel_tool_calls',
    );
  }
  if (choice === undefined || choice === null) return null;
  if (typeof choice === 'string') {
    return TOOL_CHOICES.has(choice)
      ? null
      : invalid(
          `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`,
          'tool_choice',
          'invalid_value',
        );
  }
  if (!isObject(choice)) return invalid("Invalid type for 'tool_choice'.", 'tool_choice', 'invalid_type');
  if (choice.type === 'allowed_tools') return null;
  const name = isObject(choice.function)
    ? choice.function.name
    : isObject(choice.custom)
      ? choice.custom.name
      : undefined;
  if (typeof name !== 'string') return missing('tool_choice.function.name');
  const offered = (body.tools as unknown[]).filter(isObject).map((t) => {
    const spec = t.type === 'custom' ? t.custom : t.function;
    return isObject(spec) ? spec.name : undefined;
  });
  return offered.includes(name)
    ? null
    : invalid(`Tool choice '${name}' not found in 'tools' parameter.`, 'tool_choice');
}

/** Sonar: no tool calling, and strict user / assistant alternation after the system messages. */
function perplexity(body: JsonObject): Check {
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    return invalid('Tool calling is not supported for this model.', 'tools');
  }
  const roles = (body.messages as JsonObject[]).map((m) => m.role);
  let i = 0;
  while (roles[i] === 'system') i++;
  for (let expected = 'user'; i < roles.length; i++, expected = expected === 'user' ? 'assistant' : 'user') {
    if (roles[i] !== expected) {
      return openAIError(
        400,
        'After the (optional) system message(s), user and assistant roles should be alternating.',
        'invalid_message',
      );
    }
  }
  return null;
}

function missing(param: string): Check {
  return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function invalid(message: string, param: string | null, code: string | null = null): Check {
  return openAIError(400, message, 'invalid_request_error', { param, code });
}
