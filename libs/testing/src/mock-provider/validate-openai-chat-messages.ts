/**
 * OpenAI's checks of chat `messages`: roles, content per role (string or typed parts), assistant
 * `tool_calls`, and that every call is answered by `tool` messages before the conversation goes
 * on. Messages, params and codes as the API returns them (platform.openai.com/docs/api-reference/chat/create;
 * wording from the 400s quoted in public bug reports).
 */
import { openAIError } from './errors.js';
import { isObject, jsonType, openAIMissing, type Check } from './params.js';
import type { JsonObject } from './types.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
/** Part types each role may send (OpenAI's union per message type). */
const PARTS: Readonly<Record<string, ReadonlySet<string>>> = {
  system: new Set(['text']),
  developer: new Set(['text']),
  user: new Set(['text', 'image_url', 'input_audio', 'file']),
  assistant: new Set(['text', 'refusal']),
  tool: new Set(['text']),
};
const PART_TYPES = "'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'";
/** OpenAI's function name rule: the pattern, at most 64 characters. */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]+$/;

export function validateChatMessages(messages: unknown): Check {
  if (messages === undefined) return openAIMissing('messages');
  if (!Array.isArray(messages)) {
    return invalid("Invalid type for 'messages': expected an array of objects.", 'messages', 'invalid_type');
  }
  if (messages.length === 0) {
    return invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (let i = 0; i < messages.length; i++) {
    const problem = message(messages[i], i);
    if (problem) return problem;
  }
  return pairing(messages as JsonObject[]);
}

function message(m: unknown, i: number): Check {
  const role = isObject(m) ? m.role : undefined;
  if (!isObject(m) || typeof role !== 'string' || !ROLES.has(role)) {
    return invalid(
      `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `messages[${i}].role`,
      'invalid_value',
    );
  }
  if (role === 'tool' && typeof m.tool_call_id !== 'string')
    return openAIMissing(`messages[${i}].tool_call_id`);
  const optional = role === 'assistant' || role === 'function';
  if ((m.content === undefined || m.content === null) && !optional) {
    return invalid(
      `Invalid value for 'content': expected a string, got ${m.content === null ? 'null' : 'undefined'}.`,
      `messages.[${i}].content`,
    );
  }
  const content = contentParts(m.content, role, i);
  if (content) return content;
  return role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null
    ? toolCalls(m.tool_calls, i)
    : null;
}

function contentParts(value: unknown, role: string, i: number): Check {
  if (value === undefined || value === null || typeof value === 'string') return null;
  if (!Array.isArray(value)) {
    return invalid(
      `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${jsonType(value)} instead.`,
      `messages[${i}].content`,
      'invalid_type',
    );
  }
  const allowed = PARTS[role] ?? PARTS.tool;
  for (let j = 0; j < value.length; j++) {
    const part = value[j];
    const at = `messages[${i}].content[${j}]`;
    const type = isObject(part) ? part.type : undefined;
    if (!isObject(part) || typeof type !== 'string' || !allowed?.has(type)) {
      return invalid(
        `Invalid value: '${String(type)}'. Supported values are: ${PART_TYPES}.`,
        `${at}.type`,
        'invalid_value',
      );
    }
    if (type === 'text' && typeof part.text !== 'string') return openAIMissing(`${at}.text`);
    if (type === 'image_url' && !(isObject(part.image_url) && typeof part.image_url.url === 'string')) {
      return openAIMissing(`${at}.image_url.url`);
    }
    if (type === 'refusal' && typeof part.refusal !== 'string') return openAIMissing(`${at}.refusal`);
  }
  return null;
}

function toolCalls(value: unknown, i: number): Check {
  const at = `messages[${i}].tool_calls`;
  if (!Array.isArray(value)) {
    return invalid(
      `Invalid type for '${at}': expected an array of objects, but got ${jsonType(value)} instead.`,
      at,
      'invalid_type',
    );
  }
  if (value.length === 0) {
    return invalid(
      `Invalid '${at}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      at,
      'empty_array',
    );
  }
  for (let k = 0; k < value.length; k++) {
    const call = value[k];
    const callAt = `${at}[${k}]`;
    if (!isObject(call))
      return invalid(`Invalid type for '${callAt}': expected an object.`, callAt, 'invalid_type');
    if (typeof call.id !== 'string') return openAIMissing(`${callAt}.id`);
    if (call.type !== 'function') return openAIMissing(`${callAt}.type`);
    if (!isObject(call.function)) return openAIMissing(`${callAt}.function`);
    const name = call.function.name;
    if (typeof name !== 'string') return openAIMissing(`${callAt}.function.name`);
    const bad = functionName(name, `${callAt}.function.name`);
    if (bad) return bad;
    if (typeof call.function.arguments !== 'string') {
      return invalid(
        `Invalid type for '${callAt}.function.arguments': expected a string, but got ${jsonType(call.function.arguments)} instead.`,
        `${callAt}.function.arguments`,
        'invalid_type',
      );
    }
  }
  return null;
}

/** The pattern and the 64-character cap, with OpenAI's two messages. */
export function functionName(name: string, param: string): Check {
  if (!FUNCTION_NAME.test(name)) {
    return invalid(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '${FUNCTION_NAME.source}'.`,
      param,
      'invalid_value',
    );
  }
  if (name.length > 64) {
    return invalid(
      `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
      param,
      'string_above_max_length',
    );
  }
  return null;
}

/** Every `tool` message answers a call of the assistant message before it; every call is answered. */
function pairing(messages: readonly JsonObject[]): Check {
  let pending: Set<string> | null = null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as JsonObject;
    if (m.role === 'tool') {
      if (!pending || !pending.delete(String(m.tool_call_id))) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      continue;
    }
    if (pending && pending.size > 0) return unanswered(pending);
    pending =
      m.role === 'assistant' && Array.isArray(m.tool_calls)
        ? new Set(m.tool_calls.map((c) => String((c as JsonObject).id)))
        : null;
  }
  return pending && pending.size > 0 ? unanswered(pending) : null;
}

function unanswered(ids: Set<string>): Check {
  return invalid(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...ids].join(', ')}`,
    'messages',
  );
}

function invalid(message: string, param: string | null, code: string | null = null): Check {
  return openAIError(400, message, 'invalid_request_error', { param, code });
}
