import { type ChatWebSearch, type ChatWebSearchCall } from '../src/chat.js';
import { type Adjustments } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import { invalid, isObject, upstreamError, unsupported, type Json } from './wire.js';

/**
 * Anthropic's web search server tool, the target of the hub's `web_search` extension (a Responses
 * client's `web_search` / `web_search_preview` tool). Anthropic runs the searches inside the turn
 * and answers with `server_tool_use` (the query) and `web_search_tool_result` blocks before the
 * text; the query travels back to the hub as a `web_search_calls` entry.
 */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';
const WEB_SEARCH_NAME = 'web_search';

/**
 * The hub's web search -> Anthropic's tool definition. `filters.allowed_domains` and
 * `user_location` have equivalents; `search_context_size` (how much of each page OpenAI reads)
 * and other options of the client's tool do not: dropped and recorded.
 */
export function webSearchToolOf(
  search: ChatWebSearch,
  functionNames: readonly string[],
  adjust: Adjustments,
): JsonObject | undefined {
  if (!isObject(search) || typeof search.param !== 'string' || typeof search.kind !== 'string') {
    throw invalid('web_search', 'web_search must name the tool it comes from.');
  }
  const { param, kind } = search;
  if (functionNames.includes(WEB_SEARCH_NAME)) {
    // Anthropic's tool names are unique and its search tool is called web_search.
    adjust.drop(
      param,
      () => unsupported(`${param}.type`, 'an Anthropic provider'),
      `${kind} (a function has its name)`,
    );
    return undefined;
  }
  const tool: JsonObject = { type: WEB_SEARCH_TOOL_TYPE, name: WEB_SEARCH_NAME };
  if (search.allowed_domains && search.allowed_domains.length > 0)
    tool.allowed_domains = [...search.allowed_domains];
  if (search.user_location) tool.user_location = { type: 'approximate', ...search.user_location };
  adjust.carried(`carried ${param} ${kind} as ${WEB_SEARCH_TOOL_TYPE}`);
  // Hints to OpenAI's search; Anthropic decides by itself how much it reads.
  if (search.search_context_size !== undefined) adjust.drop(`${param}.search_context_size`);
  for (const option of search.other_options ?? []) adjust.drop(`${param}.${option}`);
  return tool;
}

/**
 * A `server_tool_use` block -> the hub's search call. The hub only ever sends the web search
 * tool, so any other server tool in an answer is the upstream's error.
 */
export function searchCallOf(block: Json, input: unknown): ChatWebSearchCall {
  if (block.name !== WEB_SEARCH_NAME) {
    throw upstreamError(`Anthropic ran the server tool ${String(block.name)}, which was not asked for.`);
  }
  const query = isObject(input) && typeof input.query === 'string' ? input.query : '';
  return { id: String(block.id ?? ''), query };
}

/**
 * Blocks that only report a server search's results (encrypted page contents for the next turn).
 * No client format the hub serves has a place for them: skipped. The answer's text cites them
 * through `citations`, which are left out too (OpenAI's `url_citation` annotations would need the
 * text offsets Anthropic does not give).
 */
export const isSearchResult = (type: unknown): boolean => type === 'web_search_tool_result';
