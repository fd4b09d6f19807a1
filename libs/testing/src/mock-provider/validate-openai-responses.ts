/**
 * `POST /v1/responses` request validation as OpenAI answers it
 * (platform.openai.com/docs/api-reference/responses/create; 400 wording from public reports):
 * known input item types, message parts by role (an assistant's text is `output_text`, never
 * `input_text`), every `function_call_output` answering an earlier `function_call` of the same
 * input, and tool definitions (function tools flat, with a valid name; namespaces holding
 * function tools; the hosted tools by type; a forced tool that exists).
 *
 * Deliberately NOT rejected, because OpenAI accepts them: a `function_call` whose output is not
 * in the input yet, `developer` and `system` messages, items carrying their `id` and `status`.
 */
import { openAIError } from './errors.js';
import { isObject, jsonType, openAIInt, openAIMissing, openAIModel, type Check } from './params.js';
import { functionName } from './validate-openai-chat-messages.js';
import type { JsonObject } from './types.js';

/** What OpenAI's Responses API accepts (Codex CLI 0.169 sends `client_metadata`; OpenAI takes it). */
const PARAMS = new Set([
  'background',
  'client_metadata',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
]);
const ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'custom_tool_call',
  'custom_tool_call_output',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'item_reference',
  'compaction',
];
const ITEMS = new Set(ITEM_TYPES);
const ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const INPUT_PARTS = new Set(['input_text', 'input_image', 'input_file']);
const OUTPUT_PARTS = new Set(['output_text', 'refusal']);
/** Tools by type; function and namespace are checked further, the hosted ones are taken as they come. */
const TOOL_TYPES = new Set([
  'function',
  'namespace',
  'custom',
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
  'file_search',
  'computer_use_preview',
  'mcp',
  'code_interpreter',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
]);

export function validateResponsesRequest(body: JsonObject): Check {
  for (const key in body) {
    if (!PARAMS.has(key)) {
      return invalid(`Unknown parameter: '${key}'.`, key, 'unknown_parameter');
    }
  }
  const noInput =
    body.input === undefined &&
    body.previous_response_id === undefined &&
    body.prompt === undefined &&
    body.conversation === undefined;
  return (
    openAIModel(body) ??
    (noInput ? openAIMissing('input') : null) ??
    input(body.input) ??
    openAIInt(body, 'max_output_tokens', 16) ??
    tools(body.tools) ??
    toolChoice(body.tool_choice, body.tools)
  );
}

function input(value: unknown): Check {
  if (value === undefined || typeof value === 'string') return null;
  if (!Array.isArray(value)) {
    return invalid(
      "Invalid type for 'input': expected one of a string or an array of input items.",
      'input',
      'invalid_type',
    );
  }
  const calls = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const at = `input[${i}]`;
    if (!isObject(item))
      return invalid(
        `Invalid type for '${at}': expected an object, but got ${jsonType(item)} instead.`,
        at,
        'invalid_type',
      );
    // An item without `type` is an "easy input message" ({role, content}).
    const type = item.type ?? 'message';
    if (typeof type !== 'string' || !ITEMS.has(type)) {
      return invalid(
        `Invalid value: '${String(type)}'. Supported values are: ${ITEM_TYPES.map((t) => `'${t}'`).join(', ')}.`,
        `${at}.type`,
        'invalid_value',
      );
    }
    const problem =
      type === 'message' ? message(item, at) : type === 'function_call' ? functionCall(item, at) : null;
    if (problem) return problem;
    if (type === 'function_call' || type === 'custom_tool_call') calls.add(String(item.call_id));
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      if (typeof item.call_id !== 'string') return openAIMissing(`${at}.call_id`);
      if (!calls.has(item.call_id)) {
        return invalid(`No tool call found for function call output with call_id ${item.call_id}.`, 'input');
      }
      if (item.output === undefined) return openAIMissing(`${at}.output`);
    }
  }
  return null;
}

function message(item: JsonObject, at: string): Check {
  if (typeof item.role !== 'string' || !ROLES.has(item.role)) {
    return invalid(
      `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`,
      `${at}.role`,
      'invalid_value',
    );
  }
  const content = item.content;
  if (typeof content === 'string') return null;
  if (!Array.isArray(content)) return openAIMissing(`${at}.content`);
  const allowed = item.role === 'assistant' ? OUTPUT_PARTS : INPUT_PARTS;
  for (let j = 0; j < content.length; j++) {
    const part = content[j];
    const type = isObject(part) ? part.type : undefined;
    if (typeof type !== 'string' || !allowed.has(type)) {
      const supported =
        item.role === 'assistant'
          ? "'output_text' and 'refusal'"
          : "'input_text', 'input_image', and 'input_file'";
      return invalid(
        `Invalid value: '${String(type)}'. Supported values are: ${supported}.`,
        `${at}.content[${j}]`,
        'invalid_value',
      );
    }
    if ((type === 'input_text' || type === 'output_text') && typeof (part as JsonObject).text !== 'string') {
      return openAIMissing(`${at}.content[${j}].text`);
    }
  }
  return null;
}

function functionCall(item: JsonObject, at: string): Check {
  if (typeof item.call_id !== 'string') return openAIMissing(`${at}.call_id`);
  if (typeof item.name !== 'string') return openAIMissing(`${at}.name`);
  if (typeof item.arguments !== 'string') {
    return invalid(
      `Invalid type for '${at}.arguments': expected a string, but got ${jsonType(item.arguments)} instead.`,
      `${at}.arguments`,
      'invalid_type',
    );
  }
  return null;
}

function tools(value: unknown): Check {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    return invalid("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
  for (let i = 0; i < value.length; i++) {
    const problem = tool(value[i], `tools[${i}]`);
    if (problem) return problem;
  }
  return null;
}

function tool(t: unknown, at: string): Check {
  const type = isObject(t) ? t.type : undefined;
  if (!isObject(t) || typeof type !== 'string' || !TOOL_TYPES.has(type)) {
    return invalid(
      `Invalid value: '${String(type)}'. Supported values are: ${[...TOOL_TYPES].map((x) => `'${x}'`).join(', ')}.`,
      `${at}.type`,
      'invalid_value',
    );
  }
  if (type !== 'function' && type !== 'namespace' && type !== 'custom') return null;
  // A Chat Completions tool ({type, function: {name}}) has no top-level name here.
  if (typeof t.name !== 'string') return openAIMissing(`${at}.name`);
  const bad = functionName(t.name, `${at}.name`);
  if (bad) return bad;
  if (type === 'function' && t.parameters !== undefined && t.parameters !== null && !isObject(t.parameters)) {
    return invalid(
      `Invalid type for '${at}.parameters': expected an object.`,
      `${at}.parameters`,
      'invalid_type',
    );
  }
  if (type !== 'namespace') return null;
  if (!Array.isArray(t.tools) || t.tools.length === 0) return openAIMissing(`${at}.tools`);
  for (let k = 0; k < t.tools.length; k++) {
    const inner = t.tools[k];
    const innerAt = `${at}.tools[${k}]`;
    if (!isObject(inner) || (inner.type !== 'function' && inner.type !== 'custom')) {
      return invalid(
        `Invalid value: '${String(isObject(inner) ? inner.type : inner)}'. Supported values are: 'function' and 'custom'.`,
        `${innerAt}.type`,
        'invalid_value',
      );
    }
    const problem = tool(inner, innerAt);
    if (problem) return problem;
  }
  return null;
}

function toolChoice(choice: unknown, toolList: unknown): Check {
  if (choice === undefined || choice === null) return null;
  if (typeof choice === 'string') {
    return ['none', 'auto', 'required'].includes(choice)
      ? null
      : invalid(
          `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`,
          'tool_choice',
          'invalid_value',
        );
  }
  if (!isObject(choice) || choice.type !== 'function') return null;
  const offered = Array.isArray(toolList) ? toolList.filter(isObject).map((t) => t.name) : [];
  return typeof choice.name === 'string' && offered.includes(choice.name)
    ? null
    : invalid(`Tool choice '${String(choice.name)}' not found in 'tools' parameter.`, 'tool_choice');
}

function invalid(message: string, param: string | null, code: string | null = null): Check {
  return openAIError(400, message, 'invalid_request_error', { param, code });
}
