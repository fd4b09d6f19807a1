import { type Adjustments } from '../src/adjustments.js';
import { type ChatTool, type ChatToolChoice, type ChatWebSearch } from '../src/chat.js';
import {
  enumOf,
  invalid,
  isObject,
  type Json,
  read,
  setKeys,
  unknownKeyIn,
  unsupported,
} from './client-fields.js';
import { jsonSchemaOf, withJsonSchemaTypes } from './client-schema.js';

/**
 * Gemini `tools` and `toolConfig` -> hub tools, web search and tool choice. Function declarations
 * map one to one; Google Search goes to the hub's `web_search` (a provider that can search runs
 * it, the others drop and record it); every other built-in tool runs inside Google's API only, so
 * it is dropped from the list and recorded (refused when strict).
 */

const SEARCH_TOOLS: ReadonlySet<string> = new Set(['googleSearch', 'googleSearchRetrieval']);

/** Google's other tools (v1beta and the SDK's Tool type): known, but nothing outside Google runs them. */
const GOOGLE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'codeExecution',
  'urlContext',
  'googleMaps',
  'fileSearch',
  'retrieval',
  'computerUse',
  'mcpServers',
  'enterpriseWebSearch',
  'exaAiSearch',
  'parallelAiSearch',
]);

const TOOL_FIELDS: ReadonlySet<string> = new Set([
  'functionDeclarations',
  ...SEARCH_TOOLS,
  ...GOOGLE_ONLY_TOOLS,
]);

const DECLARATION_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'parameters',
  'parametersJsonSchema',
  'response',
  'responseJsonSchema',
  'behavior',
]);

export interface HubTools {
  readonly tools?: ChatTool[];
  readonly web_search?: ChatWebSearch;
}

export function toolsOf(raw: unknown, adjust: Adjustments): HubTools {
  if (raw === undefined || raw === null) return {};
  if (!Array.isArray(raw)) throw invalid('tools', "Invalid value at 'tools': expected a list.");
  const functions: ChatTool[] = [];
  let search: ChatWebSearch | undefined;
  raw.forEach((tool: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw invalid(at, `Invalid value at '${at}': expected a Tool object.`);
    const unknown = unknownKeyIn(tool, TOOL_FIELDS, at);
    if (unknown) throw unknown;
    for (const kind of setKeys(tool)) {
      if (kind === 'functionDeclarations')
        functions.push(...declarationsOf(read(tool, kind), `${at}.${kind}`, adjust));
      else if (SEARCH_TOOLS.has(kind) && search === undefined)
        search = webSearchOf(read(tool, kind), at, kind);
      else adjust.drop(at, () => unsupported(`${at}.${kind}`), kind);
    }
  });
  return { ...(functions.length > 0 ? { tools: functions } : {}), ...(search ? { web_search: search } : {}) };
}

function webSearchOf(options: unknown, at: string, kind: string): ChatWebSearch {
  const other = isObject(options) ? setKeys(options) : [];
  return { param: at, kind, ...(other.length > 0 ? { other_options: other } : {}) };
}

function declarationsOf(raw: unknown, at: string, adjust: Adjustments): ChatTool[] {
  if (!Array.isArray(raw)) throw invalid(at, `Invalid value at '${at}': expected a list.`);
  return raw.map((d: unknown, j) => declarationOf(d, `${at}[${j}]`, adjust));
}

function declarationOf(d: unknown, at: string, adjust: Adjustments): ChatTool {
  if (!isObject(d)) throw invalid(at, `Invalid value at '${at}': expected a FunctionDeclaration.`);
  const unknown = unknownKeyIn(d, DECLARATION_FIELDS, at);
  if (unknown) throw unknown;
  if (typeof d.name !== 'string' || d.name === '')
    throw invalid(`${at}.name`, `* GenerateContentRequest.${at}.name: name is required.`);
  const fn: Json = { name: d.name };
  if (typeof d.description === 'string') fn.description = d.description;
  const parameters = parametersOf(d, at, adjust);
  if (parameters) fn.parameters = parameters;
  // What a function returns is the model's to read in the response; the schema of it is a hint.
  if (read(d, 'response') != null || read(d, 'responseJsonSchema') != null)
    adjust.drop('tools[].functionDeclarations[].response', () => unsupported(`${at}.response`));
  // Google honours `behavior` (NON_BLOCKING) only on its Live API.
  if (d.behavior != null) adjust.drop('tools[].functionDeclarations[].behavior');
  return { type: 'function', function: fn } as unknown as ChatTool;
}

/** `parametersJsonSchema` is JSON Schema already; `parameters` is Google's OpenAPI subset. */
function parametersOf(d: Json, at: string, adjust: Adjustments): Json | undefined {
  const openApi = read(d, 'parameters');
  const jsonSchema = read(d, 'parametersJsonSchema');
  if (openApi != null && jsonSchema != null) {
    throw invalid(
      `${at}.parameters`,
      `* GenerateContentRequest.${at}: parameters and parametersJsonSchema are mutually exclusive.`,
    );
  }
  if (jsonSchema != null) {
    if (!isObject(jsonSchema))
      throw invalid(`${at}.parametersJsonSchema`, `${at}.parametersJsonSchema must be a JSON Schema object.`);
    return withJsonSchemaTypes(jsonSchema);
  }
  if (openApi == null) return undefined;
  if (!isObject(openApi))
    throw invalid(`${at}.parameters`, `Invalid value at '${at}.parameters': expected a Schema.`);
  const dropped = new Set<string>();
  const schema = jsonSchemaOf(openApi, dropped);
  for (const keyword of dropped) adjust.drop(`tools[].functionDeclarations[].parameters.${keyword}`);
  return schema;
}

const CONFIG_FIELDS: ReadonlySet<string> = new Set([
  'functionCallingConfig',
  'retrievalConfig',
  'includeServerSideToolInvocations',
]);
const CALLING_FIELDS: ReadonlySet<string> = new Set([
  'mode',
  'allowedFunctionNames',
  'streamFunctionCallArguments',
]);
const FCC = 'toolConfig.functionCallingConfig';

/**
 * `toolConfig.functionCallingConfig` -> `tool_choice`. AUTO, NONE and ANY are auto, none and
 * required. ANY with one allowed function names it; with several, the tool list is narrowed to
 * them and the choice is `required` (the hub has no "one of these"), which allows exactly the
 * calls Google would; recorded as carried. VALIDATED (AUTO with calls checked against their
 * schemas) is read as AUTO, the check dropped. Without function tools auto and none are left out
 * (providers refuse a choice without tools); ANY is refused.
 */
export function toolChoiceOf(
  config: unknown,
  hub: HubTools,
  adjust: Adjustments,
): HubTools & { tool_choice?: ChatToolChoice } {
  if (config === undefined || config === null) return hub;
  if (!isObject(config))
    throw invalid('toolConfig', "Invalid value at 'tool_config': expected a ToolConfig.");
  const unknown = unknownKeyIn(config, CONFIG_FIELDS, 'toolConfig');
  if (unknown) throw unknown;
  // A location for Google Maps and Search grounding: a hint for tools that run at Google.
  if (read(config, 'retrievalConfig') != null)
    adjust.drop('toolConfig.retrievalConfig', () => unsupported('toolConfig.retrievalConfig'));
  // Whether Google shows its own tools' calls in the answer: no Google tool runs elsewhere.
  if (read(config, 'includeServerSideToolInvocations') != null)
    adjust.drop('toolConfig.includeServerSideToolInvocations');
  const calling = read(config, 'functionCallingConfig');
  if (calling === undefined || calling === null) return hub;
  if (!isObject(calling)) throw invalid(FCC, `Invalid value at 'tool_config.function_calling_config'.`);
  const unknownCalling = unknownKeyIn(calling, CALLING_FIELDS, FCC);
  if (unknownCalling) throw unknownCalling;
  if (read(calling, 'streamFunctionCallArguments') != null) adjust.drop(`${FCC}.streamFunctionCallArguments`);
  const mode = enumOf(calling.mode, `${FCC}.mode`) ?? 'AUTO';
  const names = allowedNames(read(calling, 'allowedFunctionNames'), mode, hub.tools ?? []);
  if (hub.tools === undefined) {
    if (mode !== 'ANY') return hub;
    throw invalid(
      `${FCC}.mode`,
      `${FCC}.mode ANY forces a function call, but the request has no function the provider can call.`,
    );
  }
  switch (mode) {
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
      return { ...hub, tool_choice: 'auto' };
    case 'NONE':
      return { ...hub, tool_choice: 'none' };
    case 'VALIDATED':
      adjust.drop(`${FCC}.mode`, () => unsupported(`${FCC}.mode (VALIDATED)`), '(VALIDATED, read as AUTO)');
      return { ...hub, tool_choice: 'auto' };
    case 'ANY':
      return anyOf(hub, hub.tools, names, adjust);
    default:
      throw invalid(`${FCC}.mode`, `Invalid value at 'tool_config.function_calling_config.mode' (${mode}).`);
  }
}

function allowedNames(raw: unknown, mode: string, tools: readonly ChatTool[]): string[] {
  if (raw === undefined || raw === null) return [];
  const at = `${FCC}.allowedFunctionNames`;
  if (!Array.isArray(raw) || !raw.every((n) => typeof n === 'string'))
    throw invalid(at, `Invalid value at '${at}': expected a list of names.`);
  if (raw.length > 0 && mode !== 'ANY')
    throw invalid(
      at,
      `* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: may only be set when mode is ANY.`,
    );
  const declared = new Set(tools.map((t) => t.function.name));
  const missing = raw.find((n) => !declared.has(n));
  if (missing !== undefined)
    throw invalid(at, `${at} names ${missing}, which no function declaration declares.`);
  return [...new Set(raw)];
}

function anyOf(hub: HubTools, tools: ChatTool[], names: readonly string[], adjust: Adjustments) {
  if (names.length === 1)
    return { ...hub, tool_choice: { type: 'function' as const, function: { name: names[0]! } } };
  if (names.length === 0 || names.length === tools.length)
    return { ...hub, tool_choice: 'required' as const };
  const allowed = tools.filter((t) => names.includes(t.function.name));
  adjust.carried(
    `carried ${FCC}.allowedFunctionNames as tool_choice required over ${allowed.length} of ${tools.length} tools`,
  );
  return { ...hub, tools: allowed, tool_choice: 'required' as const };
}
