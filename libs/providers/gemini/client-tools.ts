import { type Adjustments } from '../src/adjustments.js';
import { type ChatTool, type ChatWebSearch } from '../src/chat.js';
import { invalid, isObject, type Json, read, setKeys, unknownKeyIn, unsupported } from './client-fields.js';
import { jsonSchemaOf, withJsonSchemaTypes } from './client-schema.js';

/**
 * Gemini `tools` -> hub tools and web search (`toolConfig` is client-tool-choice.ts). Function declarations
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
