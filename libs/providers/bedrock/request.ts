import { type Adjustments, untracked } from '../src/adjustments.js';
import { type ChatRequest, type ChatTool, type ChatToolChoice } from '../src/chat.js';
import { checkExpressible, hubFieldRules, stopList } from '../src/hub-fields.js';
import { type UpstreamRequest } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { conversePath, DEFAULT_MAX_TOKENS, EFFORT_BUDGET, isAnthropicModel } from './endpoint.js';
import { conversationOf } from './request-messages.js';
import { type ConverseMessage, invalid, isObject, unsupported } from './wire.js';

/** Hub fields Converse carries (the end user has no place there: dropped as a hint). */
const RULES = hubFieldRules(
  'a Bedrock provider',
  [
    'model messages stream stream_options max_tokens max_completion_tokens temperature top_p stop',
    'tools tool_choice parallel_tool_calls reasoning_effort thinking web_search response_format',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Hub request -> Bedrock Converse (`/model/{modelId}/converse`, `converse-stream` for a stream).
 * Every field is mapped, dropped and recorded on `adjust` (IGNORED, and hints Converse has no
 * place for), or refused with a 400 naming it. Thinking is Claude's own field, carried in
 * `additionalModelRequestFields` to Anthropic models only.
 */
export function converseRequestOf(
  req: ChatRequest,
  upstreamModel: string,
  adjust: Adjustments = untracked(),
): UpstreamRequest {
  checkExpressible(req, RULES, adjust);
  if (!Array.isArray(req.messages)) throw invalid('messages', 'messages must be an array.');
  const { system, messages } = conversationOf(req.messages);
  const body: JsonObject = { messages };
  if (system.length > 0) body.system = system;
  const thinking = thinkingOf(req, upstreamModel, adjust);
  const config = inferenceConfigOf(req, thinking, adjust);
  if (Object.keys(config).length > 0) body.inferenceConfig = config;
  const tools = toolConfigOf(req, messages, adjust);
  if (tools !== undefined) body.toolConfig = tools;
  if (thinking !== undefined) body.additionalModelRequestFields = { thinking };
  if (req.web_search) adjust.drop(req.web_search.param, () => unsupported(req.web_search!.param));
  if (
    req.response_format !== undefined &&
    req.response_format !== null &&
    req.response_format.type !== 'text'
  )
    throw unsupported(`response_format.type (${String(req.response_format.type)})`);
  return { path: conversePath(upstreamModel, req.stream === true), body, headers: {} };
}

interface Thinking {
  readonly type: 'enabled';
  readonly budget_tokens: number;
}

/**
 * Claude's extended thinking. Other models' reasoning settings differ per model family, so an
 * effort asked of them is dropped as a hint (refused when strict); thinking spelt out is refused.
 */
function thinkingOf(req: ChatRequest, model: string, adjust: Adjustments): Thinking | undefined {
  if (req.thinking?.type === 'disabled') return undefined;
  const effort = req.reasoning_effort;
  if (req.thinking === undefined && (effort === undefined || effort === null)) return undefined;
  const param = req.thinking ? 'thinking' : 'reasoning_effort';
  if (!isAnthropicModel(model)) {
    adjust.drop(param, () => unsupported(`${param} (for a model other than Claude)`));
    return undefined;
  }
  const forced = req.tool_choice === 'required' || isObject(req.tool_choice);
  if (forced && Array.isArray(req.tools) && req.tools.length > 0) {
    // Claude cannot think while a tool call is forced: the forced call decides the answer.
    adjust.drop(param, () => unsupported(`${param} (with a tool_choice that forces a tool)`));
    return undefined;
  }
  if (req.thinking) return { type: 'enabled', budget_tokens: req.thinking.budget_tokens };
  if (!(effort! in EFFORT_BUDGET))
    throw invalid('reasoning_effort', 'reasoning_effort must be minimal, low, medium or high.');
  const budget = EFFORT_BUDGET[effort!];
  const cap = req.max_completion_tokens ?? req.max_tokens;
  if (cap === undefined || cap === null) return { type: 'enabled', budget_tokens: budget };
  // OpenAI's cap includes reasoning tokens, Claude's includes thinking: the budget must fit.
  const fitted = Math.min(budget, cap - 1);
  if (fitted < EFFORT_BUDGET.minimal) {
    throw invalid(
      'max_completion_tokens',
      `With reasoning_effort, a Claude model on Bedrock needs max_completion_tokens above ${EFFORT_BUDGET.minimal}.`,
    );
  }
  return { type: 'enabled', budget_tokens: fitted };
}

function inferenceConfigOf(
  req: ChatRequest,
  thinking: Thinking | undefined,
  adjust: Adjustments,
): JsonObject {
  const config: JsonObject = {};
  const asked = req.max_completion_tokens ?? req.max_tokens;
  if (asked !== undefined && asked !== null) {
    const param = req.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
    if (!Number.isInteger(asked) || asked < 1) throw invalid(param, `${param} must be a positive integer.`);
    config.maxTokens = asked;
  } else if (thinking !== undefined) {
    // Claude counts thinking inside the cap, which must exceed the budget.
    config.maxTokens = DEFAULT_MAX_TOKENS + thinking.budget_tokens;
  }
  if (req.temperature !== undefined && req.temperature !== null) {
    if (thinking !== undefined && req.temperature !== 1) {
      adjust.drop(
        'temperature',
        () => unsupported('temperature (other than 1 with reasoning)'),
        '(Claude thinks at temperature 1 only)',
      );
    } else if (typeof req.temperature !== 'number' || req.temperature < 0 || req.temperature > 1) {
      throw invalid(
        'temperature',
        'temperature must be between 0 and 1 for a Bedrock provider (its range is 0..1).',
      );
    } else config.temperature = req.temperature;
  }
  if (req.top_p !== undefined && req.top_p !== null) config.topP = req.top_p;
  const stops = stopList(req.stop);
  if (stops) config.stopSequences = stops;
  return config;
}

/**
 * `tools` -> `toolConfig`. Converse has no "none" choice: without tool blocks in the history the
 * tools are left out (the model cannot call what it is not given); with them, Converse needs the
 * tools declared, so the choice is dropped (recorded). `parallel_tool_calls` has no field.
 */
function toolConfigOf(
  req: ChatRequest,
  messages: readonly ConverseMessage[],
  adjust: Adjustments,
): JsonObject | undefined {
  const tools = req.tools ?? [];
  if (!Array.isArray(tools)) throw invalid('tools', 'tools must be an array.');
  const specs = tools.map((t, i) => toolSpecOf(t, `tools[${i}]`));
  if (req.parallel_tool_calls === false && specs.length > 0) adjust.drop('parallel_tool_calls');
  const choice = req.tool_choice;
  if (specs.length === 0) {
    if (choice === undefined || choice === null || choice === 'none' || choice === 'auto') return undefined;
    throw invalid('tool_choice', 'tool_choice requires tools.');
  }
  if (choice === 'none') {
    const usesTools = messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
    if (!usesTools) return undefined;
    adjust.drop('tool_choice', () => unsupported('tool_choice (none, with tool calls in the conversation)'));
    return { tools: specs };
  }
  const toolChoice = toolChoiceOf(choice);
  return toolChoice === undefined ? { tools: specs } : { tools: specs, toolChoice };
}

function toolSpecOf(tool: ChatTool, at: string): JsonObject {
  if (!isObject(tool) || tool.type !== 'function') throw unsupported(`${at}.type`);
  const fn = tool.function;
  if (!isObject(fn) || typeof fn.name !== 'string')
    throw invalid(`${at}.function.name`, `${at}.function.name is required.`);
  return {
    toolSpec: {
      name: fn.name,
      ...(typeof fn.description === 'string' && fn.description !== '' ? { description: fn.description } : {}),
      // Converse requires a schema; OpenAI's default for a tool without one is "no parameters".
      inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } },
    },
  };
}

function toolChoiceOf(choice: ChatToolChoice | undefined): JsonObject | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (
    isObject(choice) &&
    choice.type === 'function' &&
    isObject(choice.function) &&
    typeof choice.function.name === 'string'
  )
    return { tool: { name: choice.function.name } };
  throw unsupported('tool_choice');
}
