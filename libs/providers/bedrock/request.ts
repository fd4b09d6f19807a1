import { type Adjustments, untracked } from '../src/adjustments.js';
import { type ChatRequest, type ChatTool, type ChatToolChoice } from '../src/chat.js';
import { hubFieldRules, stopList } from '../src/hub-fields.js';
import { askedOutputCap, fittedEffortBudget, hubMessages, unitTemperature } from '../src/hub-request.js';
import { checkChoiceWithoutTools, forcedFunctionOf, hubTools, toolFunctionOf } from '../src/hub-tools.js';
import { type UpstreamRequest } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { conversePath, DEFAULT_MAX_TOKENS, EFFORT_BUDGET, isAnthropicModel } from './endpoint.js';
import { conversationOf } from './request-messages.js';
import { type ConverseMessage, isObject, unsupported } from './wire.js';

const TARGET = 'a Bedrock provider';

/** Hub fields Converse carries (the end user has no place there: dropped as a hint). */
const RULES = hubFieldRules(
  TARGET,
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
  const { system, messages } = conversationOf(hubMessages(req, RULES, adjust));
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
  const budget = fittedEffortBudget(req, effort!, EFFORT_BUDGET, 'a Claude model on Bedrock');
  return { type: 'enabled', budget_tokens: budget };
}

function inferenceConfigOf(
  req: ChatRequest,
  thinking: Thinking | undefined,
  adjust: Adjustments,
): JsonObject {
  const config: JsonObject = {};
  const asked = askedOutputCap(req);
  if (asked !== undefined) {
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
    } else config.temperature = unitTemperature(req.temperature, TARGET);
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
  const specs = hubTools(req).map((t, i) => toolSpecOf(t, `tools[${i}]`));
  if (req.parallel_tool_calls === false && specs.length > 0) adjust.drop('parallel_tool_calls');
  const choice = req.tool_choice;
  if (specs.length === 0) {
    checkChoiceWithoutTools(choice, 'tools');
    return undefined;
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
  const fn = toolFunctionOf(tool, at, TARGET);
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
  const forced = forcedFunctionOf(choice);
  if (forced !== undefined) return { tool: { name: forced } };
  throw unsupported('tool_choice');
}
