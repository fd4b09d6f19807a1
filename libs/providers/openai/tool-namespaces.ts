import { type JsonObject } from '../src/types.js';
import { isObject } from './fields.js';

/**
 * Responses `namespace` tools (Codex groups its sub-agent tools in one) have no equivalent in chat
 * or Anthropic tools. They are carried as plain function tools whose name joins the namespace and
 * the tool (`multi_agent_v1__spawn_agent`), and split again in the answer and in the next turn's
 * history, so the client never sees the flattened name.
 */
export const NAMESPACE_SEPARATOR = '__';

export const flatToolName = (namespace: string, name: string): string =>
  `${namespace}${NAMESPACE_SEPARATOR}${name}`;

/** A tool call's name as the client knows it. */
export interface ClientToolName {
  readonly name: string;
  readonly namespace?: string;
}

/** Flattened name -> the client's name, for the namespace tools of one request (empty if none). */
export function namespacedToolNames(request: JsonObject): ReadonlyMap<string, ClientToolName> {
  const names = new Map<string, ClientToolName>();
  if (!Array.isArray(request.tools)) return names;
  for (const tool of request.tools) {
    if (!isObject(tool) || tool.type !== 'namespace' || typeof tool.name !== 'string') continue;
    for (const inner of Array.isArray(tool.tools) ? tool.tools : []) {
      if (isObject(inner) && typeof inner.name === 'string')
        names.set(flatToolName(tool.name, inner.name), { name: inner.name, namespace: tool.name });
    }
  }
  return names;
}

export function clientToolName(names: ReadonlyMap<string, ClientToolName>, flat: string): ClientToolName {
  return names.get(flat) ?? { name: flat };
}
