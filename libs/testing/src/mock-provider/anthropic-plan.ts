import type { ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';

/** Everything decided about one Messages answer; the message object and the stream are views of it. */
export interface MessagesPlan {
  readonly id: string;
  readonly model: string;
  readonly reply: ShapedReply;
  /** With `thinking` enabled: a signed thinking block before the answer, as Claude sends it. */
  readonly thinking: { readonly text: string; readonly signature: string } | null;
  /** With tool calls: a short text block first, then one tool_use block per call (as Claude answers). */
  readonly toolCalls: readonly { readonly id: string; readonly call: ToolCallPlan }[];
  /**
   * With the web search tool and a prompt asking to search: the searches before the answer
   * (`behaviour.webSearchCount`, at most the tool's `max_uses`); empty otherwise.
   */
  readonly searches: readonly WebSearchPlan[];
  /** Uncached input tokens (Anthropic counts cache reads apart from `input_tokens`). */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
  readonly stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
}

export interface WebSearchPlan {
  readonly id: string;
  readonly query: string;
  readonly url: string;
  readonly title: string;
}

/** The search's blocks as Anthropic sends them: the call, then its (encrypted) results. */
export const searchCallBlock = (search: WebSearchPlan, input: object): object => ({
  type: 'server_tool_use',
  id: search.id,
  name: 'web_search',
  input,
});

export const searchResultBlock = (search: WebSearchPlan): object => ({
  type: 'web_search_tool_result',
  tool_use_id: search.id,
  content: [
    {
      type: 'web_search_result',
      url: search.url,
      title: search.title,
      encrypted_content: Buffer.from(search.query).toString('base64'),
      page_age: null,
    },
  ],
});

/** A citation of the search result, as Anthropic puts them on the text that uses it. */
export const searchCitation = (search: WebSearchPlan): object => ({
  type: 'web_search_result_location',
  url: search.url,
  title: search.title,
  encrypted_index: Buffer.from(search.url).toString('base64'),
  cited_text: `Results for ${search.query}`,
});

/** The input counts as Anthropic reports them: three disjoint parts, the writes split by TTL. */
export function inputUsage(plan: MessagesPlan): object {
  return {
    input_tokens: plan.inputTokens,
    cache_creation_input_tokens: plan.cacheWrite5mTokens + plan.cacheWrite1hTokens,
    cache_read_input_tokens: plan.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: plan.cacheWrite5mTokens,
      ephemeral_1h_input_tokens: plan.cacheWrite1hTokens,
    },
  };
}

export function messageUsage(plan: MessagesPlan, outputTokens: number): object {
  return {
    ...inputUsage(plan),
    output_tokens: outputTokens,
    ...serverToolUse(plan),
    service_tier: 'standard',
  };
}

/** Searches are counted apart from tokens (Anthropic bills them per search). */
export const serverToolUse = (plan: MessagesPlan): object =>
  plan.searches.length > 0 ? { server_tool_use: { web_search_requests: plan.searches.length } } : {};

/** The content blocks of the final message. */
export function contentBlocks(plan: MessagesPlan): object[] {
  const content: object[] = [];
  if (plan.thinking)
    content.push({ type: 'thinking', thinking: plan.thinking.text, signature: plan.thinking.signature });
  for (const search of plan.searches)
    content.push(searchCallBlock(search, { query: search.query }), searchResultBlock(search));
  const cited = plan.searches[0];
  if (cited) content.push({ type: 'text', text: plan.reply.text, citations: [searchCitation(cited)] });
  else content.push({ type: 'text', text: plan.reply.text });
  for (const { id, call } of plan.toolCalls)
    content.push({ type: 'tool_use', id, name: call.name, input: JSON.parse(call.arguments) as unknown });
  return content;
}
