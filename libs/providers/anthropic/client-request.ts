import { type ChatMessage, type ChatRequest, type ChatTool, type ChatToolChoice } from '../src/chat.js';
import { type Adjustments, untracked } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import { effortOfBudget } from './endpoint.js';
import { hubMessagesOf, textParts } from './client-messages.js';
import { invalid, isObject, unsupported, type Json } from './wire.js';

const TARGET = 'an OpenAI-format provider';

/** Caching and capacity hints: they change nothing the model generates, so they are dropped. */
const DROPPED = new Set(['cache_control', 'service_tier', 'speed']);

/**
 * Anthropic's own context machinery: it edits what Anthropic keeps of the history, never the shape
 * of the answer; an OpenAI-format provider has none, so it is dropped (refused when strict).
 */
const HINTS = new Set(['context_management']);

const MAPPED = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stream',
  'temperature',
  'top_p',
  'stop_sequences',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'output_config',
  'output_format',
]);

type Effort = NonNullable<ChatRequest['reasoning_effort']>;
const EFFORTS = new Set(['low', 'medium', 'high']);

/**
 * `/v1/messages` body -> hub request. Validation follows Anthropic's own (required model,
 * max_tokens and messages; unknown fields rejected, as Anthropic rejects them); a malformed
 * field is a 400 naming it, which the edge renders as an Anthropic invalid_request_error. Hints
 * of Anthropic's own machinery (context_management, cache marks, thinking display, tool loading)
 * and server tools are dropped and recorded on `adjust`; fields whose loss would change the
 * answer (top_k, documents, MCP servers, containers, a prefill...) are 400s.
 */
export function hubRequestOfMessages(body: JsonObject, adjust: Adjustments = untracked()): ChatRequest {
  for (const key of Object.keys(body)) {
    // A top-level cache_control is counted with the other marks below.
    if (MAPPED.has(key) || key === 'cache_control' || body[key] === undefined) continue;
    if (DROPPED.has(key)) adjust.drop(key);
    else if (HINTS.has(key)) adjust.drop(key, () => unsupported(key, TARGET));
    else
      throw key === 'top_k' || KNOWN_ANTHROPIC.has(key)
        ? unsupported(key, TARGET)
        : invalid(key, `${key}: Extra inputs are not permitted.`);
  }
  if (typeof body.model !== 'string' || body.model === '')
    throw invalid('model', 'model: Field required (a string).');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw invalid('max_tokens', 'max_tokens: Field required (an integer greater than or equal to 1).');
  }
  const messages: ChatMessage[] = [...systemOf(body.system), ...hubMessagesOf(body.messages)];
  const req: Record<string, unknown> = { model: body.model, messages, max_tokens: maxTokens };
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    throw invalid('stream', 'stream: Input should be a valid boolean.');
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  const temperature = unit(body.temperature, 'temperature');
  if (temperature !== undefined) req.temperature = temperature;
  const topP = unit(body.top_p, 'top_p');
  if (topP !== undefined) req.top_p = topP;
  if (body.stop_sequences !== undefined) {
    const stops = body.stop_sequences;
    if (!Array.isArray(stops) || !stops.every((s) => typeof s === 'string')) {
      throw invalid('stop_sequences', 'stop_sequences: Input should be a valid list of strings.');
    }
    if (stops.length > 0) req.stop = [...stops];
  }
  if (body.tools !== undefined) {
    const tools = toolsOf(body.tools, adjust);
    if (tools.length > 0) req.tools = tools;
  }
  const marks = cacheMarks(body);
  if (marks > 0) adjust.drop('cache_control', undefined, `(${marks} marks; the provider caches by itself)`);
  Object.assign(req, toolChoiceOf(body.tool_choice, req.tools !== undefined));
  if (body.metadata !== undefined) {
    if (!isObject(body.metadata)) throw invalid('metadata', 'metadata: Input should be a valid dictionary.');
    const user = body.metadata.user_id;
    if (typeof user === 'string' && user !== '') req.user = user;
  }
  Object.assign(req, thinkingOf(body.thinking, body.output_config, adjust));
  const format = formatOf(body);
  if (format) req.response_format = format;
  return req as unknown as ChatRequest;
}

/** Anthropic fields with no OpenAI-format equivalent. */
const KNOWN_ANTHROPIC = new Set([
  'container',
  'mcp_servers',
  'inference_geo',
  'diagnostics',
  'user_profile_id',
  'workspace_id',
]);

function systemOf(system: unknown): ChatMessage[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ role: 'system', content: system }];
  if (!Array.isArray(system))
    throw invalid('system', 'system: Input should be a valid string or list of text blocks.');
  if (system.length === 0) return [];
  return [
    {
      role: 'system',
      content: textParts(
        system.map((b: unknown) => (isObject(b) ? b : {})),
        'system',
      ),
    },
  ];
}

function unit(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || value < 0 || value > 1)
    throw invalid(param, `${param}: must be a number from 0 to 1.`);
  return value;
}

/** Server tools run inside Anthropic's API; elsewhere they are dropped from the list (refused when strict). */
const SERVER_TOOL = /^(web_search|web_fetch|code_execution|tool_search_tool)_/;

/** Tool fields that tune how Anthropic loads or streams a tool, not what the model may call. */
const TOOL_HINTS = ['defer_loading', 'eager_input_streaming', 'cache_control'] as const;

function toolsOf(tools: unknown, adjust: Adjustments): ChatTool[] {
  if (!Array.isArray(tools)) throw invalid('tools', 'tools: Input should be a valid list.');
  return tools.flatMap((t: unknown, i): ChatTool[] => {
    const at = `tools.${i}`;
    if (!isObject(t)) throw invalid(at, `${at}: Input should be a valid dictionary.`);
    const type = t.type ?? 'custom';
    if (typeof type === 'string' && SERVER_TOOL.test(type)) {
      adjust.drop(`tools[${i}]`, () => unsupported(`${at}.type (${type})`, TARGET), type);
      return [];
    }
    // Client tools of Anthropic's own schema (bash_*, text_editor_*, computer_*): no schema to send.
    if (type !== 'custom') throw unsupported(`${at}.type (${String(type)})`, TARGET);
    for (const hint of TOOL_HINTS) {
      if (t[hint] !== undefined && hint !== 'cache_control') adjust.drop(`tools[].${hint}`);
    }
    if (typeof t.name !== 'string' || t.name === '')
      throw invalid(`${at}.name`, `${at}.name: Field required.`);
    if (!isObject(t.input_schema)) throw invalid(`${at}.input_schema`, `${at}.input_schema: Field required.`);
    const fn: Json = { name: t.name };
    if (typeof t.description === 'string') fn.description = t.description;
    fn.parameters = t.input_schema;
    if (t.strict === true) fn.strict = true;
    return [{ type: 'function', function: fn } as unknown as ChatTool];
  });
}

/** `cache_control` marks anywhere in the request: top level, system, tools, content blocks. */
function cacheMarks(body: JsonObject): number {
  const marked = (v: unknown): number => (isObject(v) && v.cache_control != null ? 1 : 0);
  const inList = (list: unknown): number =>
    Array.isArray(list) ? list.reduce((n: number, item: unknown) => n + marked(item), 0) : 0;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const inMessages = messages.reduce((n: number, m: unknown) => n + (isObject(m) ? inList(m.content) : 0), 0);
  return marked(body) + inList(body.system) + inList(body.tools) + inMessages;
}

/**
 * Without tools (none sent, or only server tools, dropped) OpenAI-format providers refuse
 * `tool_choice` and `parallel_tool_calls`, which Anthropic takes: `auto` and `none` then mean "no
 * call" and go, with the parallel flag; forcing a tool that is not there is refused.
 */
function toolChoiceOf(
  choice: unknown,
  hasTools: boolean,
): { tool_choice?: ChatToolChoice; parallel_tool_calls?: boolean } {
  const mapped = mappedToolChoice(choice);
  if (hasTools || mapped.tool_choice === undefined) return hasTools ? mapped : {};
  if (mapped.tool_choice === 'auto' || mapped.tool_choice === 'none') return {};
  throw invalid(
    'tool_choice',
    'tool_choice: a forced tool needs tools, and this request has none the provider can take.',
  );
}

function mappedToolChoice(choice: unknown): { tool_choice?: ChatToolChoice; parallel_tool_calls?: boolean } {
  if (choice === undefined || choice === null) return {};
  if (!isObject(choice)) throw invalid('tool_choice', 'tool_choice: Input should be a valid dictionary.');
  const serial = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...serial };
    case 'any':
      return { tool_choice: 'required', ...serial };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      if (typeof choice.name !== 'string')
        throw invalid('tool_choice.name', 'tool_choice.name: Field required.');
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...serial };
    default:
      throw invalid('tool_choice.type', "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'.");
  }
}

/**
 * `thinking` is carried whole (the hub extension), and mapped to `reasoning_effort` for
 * OpenAI-format reasoning models by budget (EFFORT_BUDGET's inverse). Adaptive thinking and
 * `output_config.effort` map to the effort directly; xhigh and max have no OpenAI level: 400.
 */
function thinkingOf(
  thinking: unknown,
  config: unknown,
  adjust: Adjustments,
): { thinking?: ChatRequest['thinking']; reasoning_effort?: Effort } {
  const effort = effortOf(config);
  if (thinking === undefined || thinking === null) return effort ? { reasoning_effort: effort } : {};
  if (!isObject(thinking)) throw invalid('thinking', 'thinking: Input should be a valid dictionary.');
  // How Anthropic shows thinking to the client (summarised, omitted): the provider decides that.
  if (thinking.display !== undefined) adjust.drop('thinking.display');
  switch (thinking.type) {
    case 'enabled': {
      const budget = thinking.budget_tokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024) {
        throw invalid(
          'thinking.budget_tokens',
          'thinking.budget_tokens: must be an integer of at least 1024.',
        );
      }
      return {
        thinking: { type: 'enabled', budget_tokens: budget },
        reasoning_effort: effort ?? effortOfBudget(budget),
      };
    }
    case 'disabled':
      return { thinking: { type: 'disabled' } };
    case 'adaptive':
      return { reasoning_effort: effort ?? 'medium' };
    default:
      throw unsupported(`thinking.type (${String(thinking.type)})`, TARGET);
  }
}

function effortOf(config: unknown): Effort | undefined {
  if (config === undefined || config === null) return undefined;
  if (!isObject(config)) throw invalid('output_config', 'output_config: Input should be a valid dictionary.');
  const effort = config.effort;
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort === 'string' && EFFORTS.has(effort)) return effort as Effort;
  throw unsupported(`output_config.effort (${String(effort)})`, TARGET);
}

/** Structured outputs: `output_config.format` (or the older `output_format`) -> json_schema. */
function formatOf(body: JsonObject): ChatRequest['response_format'] {
  const config = isObject(body.output_config) ? body.output_config : {};
  for (const key of Object.keys(config)) {
    if (key !== 'effort' && key !== 'format') throw unsupported(`output_config.${key}`, TARGET);
  }
  const format = config.format ?? body.output_format;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format) || format.type !== 'json_schema' || !isObject(format.schema)) {
    throw invalid(
      'output_config.format',
      "output_config.format: type 'json_schema' with a schema object is required.",
    );
  }
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
}
