/** Deciding when the mock answers with a tool call, and with which arguments. */

export interface ToolSpec {
  readonly name: string;
  /** The tool's JSON schema (OpenAI `parameters`, Anthropic `input_schema`). */
  readonly schema: unknown;
}

/** `any`: the client demands some tool call (OpenAI `required`, Anthropic `any`). */
export type ToolForcing =
  | { readonly kind: 'auto' }
  | { readonly kind: 'none' }
  | { readonly kind: 'any' }
  | { readonly kind: 'named'; readonly name: string };

export interface ToolCallPlan {
  readonly name: string;
  /** Arguments as the JSON text vendors put on the wire. */
  readonly arguments: string;
}

const WEATHER = /\bweather\b/i;
const PARALLEL = /\bparallel\b/i;

/**
 * Like `planToolCall`, and a prompt that says "parallel" (with parallel calls allowed) calls
 * every tool offered at once, as models do for independent lookups.
 */
export function planToolCalls(
  tools: readonly ToolSpec[],
  forcing: ToolForcing,
  lastUserText: string | null,
  parallelAllowed: boolean,
): ToolCallPlan[] {
  const first = planToolCall(tools, forcing, lastUserText);
  if (!first) return [];
  if (!parallelAllowed || forcing.kind === 'named' || lastUserText === null || !PARALLEL.test(lastUserText))
    return [first];
  return tools.map((tool) => ({ name: tool.name, arguments: JSON.stringify(argumentsFor(tool.schema)) }));
}

/**
 * A tool call when the client forces one, or when the last message is the user's and mentions the
 * weather (so a conversation ending with a tool result gets a text answer, as with a real model).
 */
export function planToolCall(
  tools: readonly ToolSpec[],
  forcing: ToolForcing,
  lastUserText: string | null,
): ToolCallPlan | null {
  if (tools.length === 0 || forcing.kind === 'none') return null;
  let tool: ToolSpec | undefined;
  if (forcing.kind === 'named') tool = tools.find((t) => t.name === forcing.name);
  else if (forcing.kind === 'any') tool = tools[0];
  else if (lastUserText !== null && WEATHER.test(lastUserText))
    tool = tools.find((t) => /weather/i.test(t.name)) ?? tools[0];
  return tool ? { name: tool.name, arguments: JSON.stringify(argumentsFor(tool.schema)) } : null;
}

/** Deterministic arguments that satisfy a simple JSON schema. */
export function argumentsFor(schema: unknown, key = ''): unknown {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return /location|city|place/i.test(key) ? 'San Francisco, CA' : 'mock';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<
        string,
        unknown
      >;
      const required = Array.isArray(s.required)
        ? (s.required as unknown[]).filter((k) => typeof k === 'string')
        : Object.keys(props);
      const out: Record<string, unknown> = {};
      for (const name of required) out[name] = argumentsFor(props[name], name);
      return out;
    }
  }
}
