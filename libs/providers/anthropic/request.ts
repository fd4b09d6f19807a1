import { type ChatRequest, type ChatTool, type ChatToolChoice } from '../src/chat.js';
import { hubFieldRules, stopList } from '../src/hub-fields.js';
import { askedOutputCap, fittedEffortBudget, hubMessages, unitTemperature } from '../src/hub-request.js';
import { checkChoiceWithoutTools, forcedFunctionOf, hubTools, toolFunctionOf } from '../src/hub-tools.js';
import { type Adjustments, untracked } from '../src/adjustments.js';
import { type UpstreamRequest } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { ANTHROPIC_MESSAGES_PATH, ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS, EFFORT_BUDGET } from './endpoint.js';
import { withCacheBreakpoints } from './cache-breakpoints.js';
import { conversationOf } from './request-messages.js';
import { webSearchToolOf } from './web-search.js';
import { isObject, unsupported } from './wire.js';

const TARGET = 'an Anthropic provider';

/** Hub fields Anthropic carries: the end user too, as `metadata.user_id`. */
const RULES = hubFieldRules(
  TARGET,
  [
    'model messages stream stream_options max_tokens max_completion_tokens temperature top_p stop',
    'tools tool_choice parallel_tool_calls user safety_identifier reasoning_effort thinking',
    'web_search response_format',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Hub request -> Anthropic `/v1/messages`. Every field is either mapped, dropped and recorded on
 * `adjust` because it does not change the output (IGNORED), or rejected with a 400 naming it.
 * Cache breakpoints are placed (see cache-breakpoints.ts) and recorded.
 */
export function anthropicRequestOf(
  req: ChatRequest,
  upstreamModel: string,
  adjust: Adjustments = untracked(),
): UpstreamRequest {
  const { system, messages } = conversationOf(hubMessages(req, RULES, adjust));
  const thinking = compatibleThinking(req, thinkingOf(req), adjust);
  const body: JsonObject = { model: upstreamModel, messages, max_tokens: maxTokensOf(req, thinking) };
  if (system.length > 0) body.system = system.length === 1 ? system[0]!.text : system;
  if (thinking) body.thinking = thinking;
  if (thinking?.type === 'enabled' && typeof req.temperature === 'number' && req.temperature !== 1) {
    // Anthropic samples at temperature 1 while thinking and refuses any other value.
    adjust.drop(
      'temperature',
      () => unsupported('temperature (other than 1 with reasoning)', TARGET),
      '(Anthropic thinks at temperature 1 only)',
    );
  } else if (req.temperature !== undefined && req.temperature !== null) {
    body.temperature = unitTemperature(req.temperature, TARGET);
  }
  if (req.top_p !== undefined && req.top_p !== null) body.top_p = req.top_p;
  const stops = stopList(req.stop);
  if (stops) body.stop_sequences = stops;
  Object.assign(body, toolsOf(req, adjust));
  const user = req.user ?? (req as unknown as JsonObject).safety_identifier;
  if (typeof user === 'string' && user !== '') body.metadata = { user_id: user };
  const format = outputFormatOf(req.response_format);
  if (format) body.output_config = { format };
  if (req.stream === true) body.stream = true;
  const cached = withCacheBreakpoints(body);
  if (cached.placed.length > 0)
    adjust.carried(`added cache_control breakpoints (${cached.placed.join(', ')})`);
  return {
    path: ANTHROPIC_MESSAGES_PATH,
    body: cached.body,
    headers: { 'anthropic-version': ANTHROPIC_VERSION },
  };
}

type Thinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };

function thinkingOf(req: ChatRequest): Thinking | undefined {
  if (req.thinking) return req.thinking;
  const effort = req.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  return { type: 'enabled', budget_tokens: fittedEffortBudget(req, effort, EFFORT_BUDGET, TARGET) };
}

/**
 * Anthropic refuses thinking while `tool_choice` forces a tool (`any` or a named tool), which
 * OpenAI takes with a reasoning effort: the forced call decides the answer's shape, the thinking
 * is a hint, so the thinking goes (recorded; refused when strict).
 */
function compatibleThinking(
  req: ChatRequest,
  thinking: Thinking | undefined,
  adjust: Adjustments,
): Thinking | undefined {
  const forced = req.tool_choice === 'required' || isObject(req.tool_choice);
  const hasTools = Array.isArray(req.tools) && req.tools.length > 0;
  if (thinking?.type !== 'enabled' || !forced || !hasTools) return thinking;
  const param = req.thinking ? 'thinking' : 'reasoning_effort';
  adjust.drop(
    param,
    () => unsupported(`${param} (with a tool_choice that forces a tool)`, TARGET),
    '(Anthropic cannot think while a tool call is forced)',
  );
  return undefined;
}

function maxTokensOf(req: ChatRequest, thinking: Thinking | undefined): number {
  // Anthropic requires a cap; without one asked, thinking's budget goes on top of the default.
  return (
    askedOutputCap(req) ?? DEFAULT_MAX_TOKENS + (thinking?.type === 'enabled' ? thinking.budget_tokens : 0)
  );
}

function toolsOf(req: ChatRequest, adjust: Adjustments): JsonObject {
  const tools = hubTools(req);
  const out: JsonObject = {};
  const list = tools.map((t, i) => toolOf(t, `tools[${i}]`));
  const search =
    req.web_search &&
    webSearchToolOf(
      req.web_search,
      list.map((t) => String(t.name)),
      adjust,
    );
  if (search) list.push(search);
  if (list.length > 0) out.tools = list;
  // A forced call names a function tool; the search alone can only be used at the model's choice.
  const choice = toolChoiceOf(req.tool_choice, tools.length > 0, req.parallel_tool_calls === false);
  if (choice) out.tool_choice = choice;
  return out;
}

function toolOf(tool: ChatTool, at: string): JsonObject {
  const fn = toolFunctionOf(tool, at, TARGET);
  return {
    name: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    // Anthropic requires a schema; OpenAI's default for a tool without one is "no parameters".
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
    ...(fn.strict === true ? { strict: true } : {}),
  };
}

function toolChoiceOf(
  choice: ChatToolChoice | undefined,
  hasTools: boolean,
  serial: boolean,
): JsonObject | undefined {
  const parallel = serial ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null)
    return hasTools && serial ? { type: 'auto', ...parallel } : undefined;
  if (!hasTools) {
    checkChoiceWithoutTools(choice, 'tools');
    return undefined;
  }
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (choice === 'none') return { type: 'none' };
  const forced = forcedFunctionOf(choice);
  if (forced !== undefined) return { type: 'tool', name: forced, ...parallel };
  throw unsupported('tool_choice', TARGET);
}

/** `json_schema` maps to Anthropic structured outputs; `json_object` (no schema) has no equivalent. */
function outputFormatOf(format: ChatRequest['response_format']): JsonObject | undefined {
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema)) {
    return { type: 'json_schema', schema: format.json_schema.schema };
  }
  throw unsupported(`response_format.type (${String(format.type)})`, TARGET);
}
