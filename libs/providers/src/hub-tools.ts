import { type ChatRequest, type ChatTool, type ChatToolChoice } from './chat.js';
import { invalid, unsupported } from './translation-errors.js';

/**
 * Checks of the hub's tools and tool choice that every translator to a function-declaring target
 * (Anthropic, Converse, Gemini) makes alike before writing them in its own shape.
 */

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's tools (none when absent). */
export function hubTools(req: ChatRequest): readonly ChatTool[] {
  const tools = req.tools ?? [];
  if (!Array.isArray(tools)) throw invalid('tools', 'tools must be an array.');
  return tools;
}

/**
 * A tool's function, checked to be one with a name: function tools are all these targets declare
 * (OpenAI's custom tools have no equivalent), refused naming `target` ("a Gemini provider").
 */
export function toolFunctionOf(tool: ChatTool, at: string, target: string): ChatTool['function'] {
  if (!isRecord(tool) || tool.type !== 'function') throw unsupported(`${at}.type`, target);
  const fn = tool.function;
  if (!isRecord(fn) || typeof fn.name !== 'string')
    throw invalid(`${at}.function.name`, `${at}.function.name is required.`);
  return fn;
}

/** The function a `tool_choice` forces, or undefined when it names none (a mode, or no choice). */
export function forcedFunctionOf(choice: ChatToolChoice | undefined): string | undefined {
  return isRecord(choice) &&
    choice.type === 'function' &&
    isRecord(choice.function) &&
    typeof choice.function.name === 'string'
    ? choice.function.name
    : undefined;
}

/**
 * A `tool_choice` given without tools to choose from: `none` and `auto` both mean "no call" then
 * and need no field, anything else is refused. `tools` names what is missing ("function tools").
 */
export function checkChoiceWithoutTools(choice: ChatToolChoice | undefined, tools: string): void {
  if (choice === undefined || choice === null || choice === 'none' || choice === 'auto') return;
  throw invalid('tool_choice', `tool_choice requires ${tools}.`);
}
