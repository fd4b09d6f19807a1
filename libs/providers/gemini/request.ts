import { type Adjustments, untracked } from '../src/adjustments.js';
import { type ChatRequest, type ChatTool, type ChatToolChoice, type ChatWebSearch } from '../src/chat.js';
import { checkExpressible, hubFieldRules, stopList } from '../src/hub-fields.js';
import { checkChoiceWithoutTools, forcedFunctionOf, hubTools, toolFunctionOf } from '../src/hub-tools.js';
import { type UpstreamRequest } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { invalid, isObject, TARGET, unsupported } from './mapping.js';
import { conversationOf } from './request-contents.js';
import {
  type GeminiFunctionDeclaration,
  type GeminiGenerationConfig,
  type GeminiRequest,
  type GeminiThinkingConfig,
  type GeminiTool,
  type GeminiToolConfig,
  geminiPaths,
} from './wire.js';

/** Hub fields Gemini carries: choices, seed and penalties too (Gemini caches implicitly, so no cache key). */
const RULES = hubFieldRules(
  TARGET,
  [
    'model messages stream stream_options max_tokens max_completion_tokens temperature top_p stop n seed',
    'tools tool_choice parallel_tool_calls web_search reasoning_effort thinking response_format',
    'presence_penalty frequency_penalty',
  ]
    .join(' ')
    .split(' '),
);

/**
 * `reasoning_effort` -> `thinkingBudget`: Google's own mapping for its OpenAI-compatible endpoint
 * (low 1024, medium 8192, high 24576, the top of Gemini 2.5 Flash's range); minimal is 512, the
 * smallest budget every Gemini 2.5 model takes (Flash-Lite's floor; Pro's is 128). Gemini 3
 * models still take budgets, mapped by Google onto their thinking levels.
 */
export const EFFORT_BUDGET = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const;

/** Google's limit on `stopSequences`. */
export const MAX_STOP_SEQUENCES = 5;

/**
 * Hub request -> Gemini `generateContent` (or `streamGenerateContent?alt=sse`): the model goes in
 * the path, never the body. Every field is mapped, dropped and recorded on `adjust` because it
 * does not change the output, or refused with a 400 naming it.
 */
export function geminiRequestOf(
  req: ChatRequest,
  upstreamModel: string,
  adjust: Adjustments = untracked(),
): UpstreamRequest {
  checkStreamOptions(req, adjust);
  if (!Array.isArray(req.messages)) throw invalid('messages', 'messages must be an array.');
  const { systemInstruction, contents } = conversationOf(req.messages, adjust);
  if (contents.length === 0) {
    throw invalid('messages', 'messages must hold a user or assistant message for a Gemini provider.');
  }
  const config = generationConfigOf(req, adjust);
  const request: GeminiRequest = {
    contents,
    ...(systemInstruction ? { systemInstruction } : {}),
    ...toolsOf(req, adjust),
    ...(Object.keys(config).length > 0 ? { generationConfig: config } : {}),
  };
  const body: JsonObject = { ...request };
  const path = req.stream === true ? geminiPaths.stream(upstreamModel) : geminiPaths.generate(upstreamModel);
  return { path, body, headers: {} };
}

function checkStreamOptions(req: ChatRequest, adjust: Adjustments): void {
  checkExpressible(req, RULES, adjust);
  // Gemini streams always carry usage, so `include_usage` is honoured as it is; other options go.
  if (isObject(req.stream_options)) {
    for (const key of Object.keys(req.stream_options))
      if (key !== 'include_usage') adjust.drop(`stream_options.${key}`);
  }
}

function generationConfigOf(req: ChatRequest, adjust: Adjustments): GeminiGenerationConfig {
  const capParam = req.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const maxOutputTokens = positiveInteger(req, capParam);
  const candidateCount = positiveInteger(req, 'n');
  const stopSequences = stopSequencesOf(req.stop);
  const thinkingConfig = thinkingConfigOf(req, adjust);
  const temperature = numberIn(req, 'temperature', 0, 2);
  const topP = numberIn(req, 'top_p', 0, 1);
  const seed = req.seed;
  if (seed !== undefined && seed !== null && !Number.isInteger(seed))
    throw invalid('seed', 'seed must be an integer.');
  // Penalties at their default (0) are left out: some Gemini models refuse the fields themselves.
  const presencePenalty = numberIn(req, 'presence_penalty', -2, 2) || undefined;
  const frequencyPenalty = numberIn(req, 'frequency_penalty', -2, 2) || undefined;
  const config: Record<string, unknown> = {
    ...responseFormatOf(req.response_format),
    maxOutputTokens,
    temperature,
    topP,
    stopSequences,
    candidateCount: candidateCount === 1 ? undefined : candidateCount,
    seed: seed ?? undefined,
    presencePenalty,
    frequencyPenalty,
    thinkingConfig,
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
}

function positiveInteger(
  req: ChatRequest,
  param: 'max_completion_tokens' | 'max_tokens' | 'n',
): number | undefined {
  const value = (req as unknown as JsonObject)[param];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw invalid(param, `${param} must be a positive integer.`);
  return value as number;
}

function numberIn(req: ChatRequest, param: string, min: number, max: number): number | undefined {
  const value = (req as unknown as JsonObject)[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || value < min || value > max) {
    throw invalid(param, `${param} must be a number between ${min} and ${max}.`);
  }
  return value;
}

function stopSequencesOf(stop: ChatRequest['stop']): string[] | undefined {
  const list = stopList(stop);
  if (list !== undefined && list.length > MAX_STOP_SEQUENCES) {
    throw invalid('stop', `stop takes at most ${MAX_STOP_SEQUENCES} sequences for a Gemini provider.`);
  }
  return list;
}

/** `json_schema` -> the schema as full JSON Schema (`responseJsonSchema`); `json_object` -> JSON mode. */
function responseFormatOf(format: ChatRequest['response_format']): GeminiGenerationConfig {
  if (format === undefined || format === null || format.type === 'text') return {};
  if (format.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format.type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema)) {
    return { responseMimeType: 'application/json', responseJsonSchema: format.json_schema.schema };
  }
  if (format.type === 'json_schema') {
    throw invalid(
      'response_format.json_schema.schema',
      'response_format.json_schema.schema must be an object.',
    );
  }
  throw unsupported(`response_format.type (${String(format.type)})`);
}

/**
 * The largest thinking budget every Gemini thinking model takes (2.5 Flash and 3 Flash stop at
 * 24576, 2.5 Pro at 32768): Claude Code asks for 31999, which Flash refuses with a 400.
 */
export const MAX_THINKING_BUDGET = 24_576;

/**
 * The hub `thinking` wins over `reasoning_effort`. A budget asks for the thought summaries too
 * (`includeThoughts`), which come back as `reasoning_content`. Gemini counts thinking inside
 * `maxOutputTokens` as OpenAI counts reasoning inside `max_completion_tokens`: no fitting needed.
 */
function thinkingConfigOf(req: ChatRequest, adjust: Adjustments): GeminiThinkingConfig | undefined {
  const thinking = req.thinking;
  if (thinking !== undefined && thinking !== null) {
    if (thinking.type === 'disabled') return { thinkingBudget: 0 };
    if (
      thinking.type === 'enabled' &&
      Number.isInteger(thinking.budget_tokens) &&
      thinking.budget_tokens >= 0
    ) {
      const budget = Math.min(thinking.budget_tokens, MAX_THINKING_BUDGET);
      if (budget < thinking.budget_tokens)
        adjust.carried(
          `carried thinking.budget_tokens ${thinking.budget_tokens} as thinkingBudget ${budget}`,
        );
      return { thinkingBudget: budget, includeThoughts: true };
    }
    throw invalid('thinking', 'thinking must be disabled, or enabled with a budget_tokens integer.');
  }
  const effort = req.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  if (!Object.hasOwn(EFFORT_BUDGET, effort)) {
    throw invalid('reasoning_effort', 'reasoning_effort must be minimal, low, medium or high.');
  }
  return { thinkingBudget: EFFORT_BUDGET[effort], includeThoughts: true };
}

/**
 * Function tools -> one `functionDeclarations` tool, their schema as full JSON Schema
 * (`parametersJsonSchema`; `parameters` takes only an OpenAPI subset). The hub's web search ->
 * `googleSearch`, after them. `tool_choice` -> `functionCallingConfig`, which governs function
 * declarations only: without any, auto and none say nothing and a forced call is refused.
 */
function toolsOf(
  req: ChatRequest,
  adjust: Adjustments,
): { tools?: GeminiTool[]; toolConfig?: GeminiToolConfig } {
  const declarations = hubTools(req).map((t, i) => declarationOf(t, `tools[${i}]`, adjust));
  const list: GeminiTool[] = declarations.length > 0 ? [{ functionDeclarations: declarations }] : [];
  if (req.web_search) list.push(googleSearchOf(req.web_search, adjust));
  // Gemini calls in parallel whenever it likes; a client asking for one call at a time gets the hint dropped.
  if (req.parallel_tool_calls === false && declarations.length > 0) {
    adjust.drop('parallel_tool_calls', () => unsupported('parallel_tool_calls'));
  }
  const mode = callingConfigOf(req.tool_choice, declarations.length > 0);
  return {
    ...(list.length > 0 ? { tools: list } : {}),
    ...(mode ? { toolConfig: { functionCallingConfig: mode } } : {}),
  };
}

function declarationOf(tool: ChatTool, at: string, adjust: Adjustments): GeminiFunctionDeclaration {
  const fn = toolFunctionOf(tool, at, TARGET);
  // Gemini has no per-tool strict mode; the arguments usually follow the schema all the same.
  if (fn.strict === true) adjust.drop(`${at}.function.strict`, () => unsupported(`${at}.function.strict`));
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    // Without a schema OpenAI's tool takes no arguments, as Gemini's declaration without one.
    ...(isObject(fn.parameters) ? { parametersJsonSchema: fn.parameters } : {}),
  };
}

/** Google Search has none of OpenAI's search options: each is dropped and recorded. */
function googleSearchOf(search: ChatWebSearch, adjust: Adjustments): GeminiTool {
  if (!isObject(search) || typeof search.param !== 'string' || typeof search.kind !== 'string') {
    throw invalid('web_search', 'web_search must name the tool it comes from.');
  }
  const { param, kind } = search;
  adjust.carried(`carried ${param} ${kind} as googleSearch`);
  const options = [
    ...(search.allowed_domains && search.allowed_domains.length > 0 ? ['allowed_domains'] : []),
    ...(search.user_location ? ['user_location'] : []),
    ...(search.search_context_size !== undefined ? ['search_context_size'] : []),
    ...(search.other_options ?? []),
  ];
  for (const option of options) adjust.drop(`${param}.${option}`);
  return { googleSearch: {} };
}

type CallingConfig = NonNullable<GeminiToolConfig['functionCallingConfig']>;

function callingConfigOf(
  choice: ChatToolChoice | undefined,
  hasFunctions: boolean,
): CallingConfig | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (!hasFunctions) {
    // A choice governs function declarations only: the search alone can be used, never forced.
    checkChoiceWithoutTools(choice, 'function tools');
    return undefined;
  }
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  const forced = forcedFunctionOf(choice);
  if (forced !== undefined) return { mode: 'ANY', allowedFunctionNames: [forced] };
  throw unsupported('tool_choice');
}
