import { type Adjustments } from '../src/adjustments.js';
import { type ChatTool, type ChatToolChoice } from '../src/chat.js';
import { enumOf, invalid, isObject, read, unknownKeyIn, unsupported } from './client-fields.js';
import { type HubTools } from './client-tools.js';

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
