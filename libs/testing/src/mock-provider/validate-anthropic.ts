/**
 * `POST /v1/messages` request validation, as Anthropic's API answers it: the 400
 * `invalid_request_error` with Anthropic's own wording (pydantic-style `path: message` for schema
 * errors, plain sentences for the semantic ones). Sources: the Messages API reference
 * (platform.claude.com/docs/en/api/messages/create) and the tool-use guide
 * (docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use); the error texts are
 * the ones Anthropic returns, as quoted in public bug reports.
 *
 * Deliberately NOT rejected, because Anthropic accepts them: consecutive turns of one role (the
 * reference: "Consecutive user or assistant turns in your request will be combined into a single
 * turn"), a first message from the assistant (the reference no longer requires a user first),
 * `cache_control` on any block, `citations` on text, beta tool fields (`defer_loading`,
 * `eager_input_streaming`, `strict`, `input_examples`) and `thinking.display`.
 */
import { anthropicInvalid, isObject, type Check } from './params.js';
import { validateConversation } from './validate-anthropic-messages.js';
import type { JsonObject } from './types.js';

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

/** Custom tool fields (the beta ones included: Claude Code and opencode send them). */
const CUSTOM_TOOL_FIELDS = new Set([
  'name',
  'description',
  'input_schema',
  'type',
  'cache_control',
  'strict',
  'defer_loading',
  'eager_input_streaming',
  'input_examples',
  'allowed_callers',
]);
/** Anthropic's current tool name pattern (it was `{1,64}` until mid-2025). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_CHOICE_TYPES = new Set(['auto', 'any', 'tool', 'none']);
const TEXT_BLOCK_FIELDS = new Set(['type', 'text', 'cache_control', 'citations']);

export function validateMessagesRequest(body: JsonObject): Check {
  return (
    topLevel(body) ??
    system(body.system) ??
    validateConversation(body.messages) ??
    tools(body.tools) ??
    toolChoice(body.tool_choice, body.tools) ??
    thinking(body)
  );
}

function topLevel(body: JsonObject): Check {
  for (const key in body)
    if (!PARAMS.has(key)) return anthropicInvalid(`${key}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string' || body.model === '') return anthropicInvalid('model: Field required');
  if (body.max_tokens === undefined) return anthropicInvalid('max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
    return anthropicInvalid('max_tokens: Input should be a valid integer');
  }
  if (body.max_tokens < 1) return anthropicInvalid('max_tokens: Input should be greater than or equal to 1');
  if (body.temperature !== undefined && typeof body.temperature !== 'number') {
    return anthropicInvalid('temperature: Input should be a valid number');
  }
  if (typeof body.temperature === 'number' && body.temperature < 0) {
    return anthropicInvalid('temperature: Input should be greater than or equal to 0');
  }
  if (typeof body.temperature === 'number' && body.temperature > 1) {
    return anthropicInvalid('temperature: Input should be less than or equal to 1');
  }
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences))
      return anthropicInvalid('stop_sequences: Input should be a valid list');
    const bad = body.stop_sequences.findIndex((s) => typeof s !== 'string');
    if (bad >= 0) return anthropicInvalid(`stop_sequences.${bad}: Input should be a valid string`);
  }
  return null;
}

/** `system`: a string, or a list of text blocks. */
function system(value: unknown): Check {
  if (value === undefined || typeof value === 'string') return null;
  if (!Array.isArray(value)) return anthropicInvalid('system: Input should be a valid list');
  for (let i = 0; i < value.length; i++) {
    const block = value[i];
    if (!isObject(block) || block.type !== 'text') {
      return anthropicInvalid(`system.${i}.type: Input should be 'text'`);
    }
    if (typeof block.text !== 'string')
      return anthropicInvalid(`system.${i}.text: Input should be a valid string`);
    for (const key in block) {
      if (!TEXT_BLOCK_FIELDS.has(key))
        return anthropicInvalid(`system.${i}.${key}: Extra inputs are not permitted`);
    }
  }
  return null;
}

function tools(value: unknown): Check {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return anthropicInvalid('tools: Input should be a valid list');
  const names = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const tool = value[i];
    if (!isObject(tool)) return anthropicInvalid(`tools.${i}: Input should be a valid dictionary`);
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom';
    const invalid = custom ? customTool(tool, `tools.${i}.custom`) : serverTool(tool, i);
    if (invalid) return invalid;
    const name = String(tool.name);
    if (names.has(name)) return anthropicInvalid('tools: Tool names must be unique.');
    names.add(name);
  }
  return null;
}

function customTool(tool: JsonObject, at: string): Check {
  for (const key in tool) {
    if (!CUSTOM_TOOL_FIELDS.has(key)) return anthropicInvalid(`${at}.${key}: Extra inputs are not permitted`);
  }
  if (tool.name === undefined) return anthropicInvalid(`${at}.name: Field required`);
  if (typeof tool.name !== 'string') return anthropicInvalid(`${at}.name: Input should be a valid string`);
  if (!TOOL_NAME.test(tool.name)) {
    return anthropicInvalid(`${at}.name: String should match pattern '${TOOL_NAME.source}'`);
  }
  if (tool.description !== undefined && typeof tool.description !== 'string') {
    return anthropicInvalid(`${at}.description: Input should be a valid string`);
  }
  if (tool.input_schema === undefined) return anthropicInvalid(`${at}.input_schema: Field required`);
  if (!isObject(tool.input_schema))
    return anthropicInvalid(`${at}.input_schema: Input should be a valid dictionary`);
  if (tool.input_schema.type !== 'object')
    return anthropicInvalid(`${at}.input_schema.type: Input should be 'object'`);
  return null;
}

/** Server and client-executed typed tools (`web_search_20250305`, `bash_20250124`...): a versioned type and a name. */
function serverTool(tool: JsonObject, i: number): Check {
  if (typeof tool.type !== 'string' || !/_\d{8}$/.test(tool.type)) {
    return anthropicInvalid(
      `tools.${i}: Input tag '${String(tool.type)}' found using 'type' does not match any of the expected tags`,
    );
  }
  if (typeof tool.name !== 'string') return anthropicInvalid(`tools.${i}.${tool.type}.name: Field required`);
  return tool.type.startsWith('web_search_') ? webSearchTool(tool, `tools.${i}.${tool.type}`) : null;
}

const WEB_SEARCH_FIELDS = new Set([
  'type',
  'name',
  'max_uses',
  'allowed_domains',
  'blocked_domains',
  'user_location',
  'cache_control',
  'defer_loading',
  'strict',
]);
const LOCATION_FIELDS = new Set(['type', 'city', 'region', 'country', 'timezone']);

/** Anthropic's web search tool definition (its documented fields; messages in its pydantic style). */
function webSearchTool(tool: JsonObject, at: string): Check {
  for (const key in tool) {
    if (!WEB_SEARCH_FIELDS.has(key)) return anthropicInvalid(`${at}.${key}: Extra inputs are not permitted`);
  }
  if (tool.name !== 'web_search') return anthropicInvalid(`${at}.name: Input should be 'web_search'`);
  const uses = tool.max_uses;
  if (uses !== undefined && (typeof uses !== 'number' || !Number.isInteger(uses) || uses < 1)) {
    return anthropicInvalid(`${at}.max_uses: Input should be greater than 0`);
  }
  for (const key of ['allowed_domains', 'blocked_domains']) {
    const list = tool[key];
    if (list !== undefined && (!Array.isArray(list) || !list.every((d) => typeof d === 'string'))) {
      return anthropicInvalid(`${at}.${key}: Input should be a valid list of strings`);
    }
  }
  if (tool.allowed_domains !== undefined && tool.blocked_domains !== undefined) {
    return anthropicInvalid('Cannot specify both allowed_domains and blocked_domains.');
  }
  const location = tool.user_location;
  if (location === undefined) return null;
  if (!isObject(location)) return anthropicInvalid(`${at}.user_location: Input should be a valid dictionary`);
  if (location.type !== 'approximate')
    return anthropicInvalid(`${at}.user_location.type: Input should be 'approximate'`);
  for (const key in location) {
    if (!LOCATION_FIELDS.has(key))
      return anthropicInvalid(`${at}.user_location.${key}: Extra inputs are not permitted`);
    if (key !== 'type' && typeof location[key] !== 'string')
      return anthropicInvalid(`${at}.user_location.${key}: Input should be a valid string`);
  }
  return null;
}

function toolChoice(choice: unknown, toolList: unknown): Check {
  if (choice === undefined) return null;
  if (!isObject(choice)) return anthropicInvalid('tool_choice: Input should be a valid dictionary');
  if (typeof choice.type !== 'string' || !TOOL_CHOICE_TYPES.has(choice.type)) {
    return anthropicInvalid(
      `tool_choice: Input tag '${String(choice.type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`,
    );
  }
  if (choice.type !== 'tool') return null;
  if (typeof choice.name !== 'string') return anthropicInvalid('tool_choice.tool.name: Field required');
  const offered = Array.isArray(toolList) ? toolList.filter(isObject).map((t) => t.name) : [];
  // Anthropic cannot force a tool it was not given (wording approximated: not found in a public report).
  return offered.includes(choice.name)
    ? null
    : anthropicInvalid(`tool_choice.name: Tool '${choice.name}' not found in tools`);
}

function thinking(body: JsonObject): Check {
  const value = body.thinking;
  if (value === undefined) return null;
  if (!isObject(value)) return anthropicInvalid('thinking: Input should be a valid dictionary');
  if (value.type === 'disabled' || value.type === 'adaptive') return null;
  if (value.type !== 'enabled') {
    return anthropicInvalid(
      `thinking: Input tag '${String(value.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
    );
  }
  const budget = value.budget_tokens;
  if (budget === undefined) return anthropicInvalid('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) {
    return anthropicInvalid('thinking.enabled.budget_tokens: Input should be a valid integer');
  }
  if (budget < 1024) {
    return anthropicInvalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  }
  if ((body.max_tokens as number) <= budget) {
    return anthropicInvalid('`max_tokens` must be greater than `thinking.budget_tokens`.');
  }
  if (typeof body.temperature === 'number' && body.temperature !== 1) {
    return anthropicInvalid(
      '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.',
    );
  }
  const choice = body.tool_choice;
  if (isObject(choice) && (choice.type === 'any' || choice.type === 'tool')) {
    return anthropicInvalid('Thinking may not be enabled when tool_choice forces tool use.');
  }
  return null;
}
