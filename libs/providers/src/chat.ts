/**
 * The hub format: OpenAI chat-completions wire shapes. Every client format translates into a
 * `ChatRequest` and out of a `ChatCompletion` / `ChatChunk` stream; every provider format
 * translates out of and into them. N client formats + M provider formats need N + M translators,
 * not N x M. Two fields are hub extensions that OpenAI-compatible vendors also use
 * (DeepSeek's `reasoning_content`, LiteLLM's `thinking_blocks`): they carry Anthropic thinking
 * across, and the OpenAI-chat provider adapter strips them before a real OpenAI upstream.
 *
 * Hub objects may carry further vendor fields at runtime that these types do not name (e.g.
 * Perplexity's `citations`, `search_results` on completions and chunks; its
 * `search_domain_filter` on requests). OpenAI-style translators keep them: the chat client
 * format and the OpenAI-chat provider format pass them through untouched; every other format
 * reads only the fields typed here.
 *
 * Two more hub extensions carry a search the provider runs itself (a Responses client's
 * `web_search` tool, which Anthropic runs as its web search server tool): `web_search` on the
 * request, `web_search_calls` on the answer. The Anthropic and Gemini providers map the request side;
 * the OpenAI-chat provider strips it (recorded as a dropped tool); only the Responses client
 * shows the answer side (as `web_search_call` items); other clients skip it.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ChatTextPart {
  readonly type: 'text';
  readonly text: string;
}

/** `url` is an https URL or a `data:<media type>;base64,<data>` URL. */
export interface ChatImagePart {
  readonly type: 'image_url';
  readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' };
}

export type ChatContentPart = ChatTextPart | ChatImagePart;

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** Anthropic thinking, kept whole so a multi-turn tool loop can send it back signed. */
export type ThinkingBlock =
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string };

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string | readonly ChatContentPart[] | null;
  readonly name?: string;
  readonly tool_calls?: readonly ChatToolCall[];
  /** Set on `role: 'tool'` messages: the call this is the result of. */
  readonly tool_call_id?: string;
  readonly reasoning_content?: string;
  readonly thinking_blocks?: readonly ThinkingBlock[];
}

export interface ChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly strict?: boolean;
  };
}

/**
 * Hub extension: a web search the provider runs itself. `param` and `kind` name the client's tool
 * (`tools[8]`, `web_search`) so a provider records what it carried or dropped under the client's
 * names. The options are OpenAI's; a provider maps those it has an equivalent for.
 */
export interface ChatWebSearch {
  readonly param: string;
  readonly kind: string;
  readonly allowed_domains?: readonly string[];
  readonly user_location?: ChatUserLocation;
  readonly search_context_size?: string;
  /** Other options of the client's tool (e.g. Codex's `external_web_access`), by name. */
  readonly other_options?: readonly string[];
}

export interface ChatUserLocation {
  readonly city?: string;
  readonly region?: string;
  readonly country?: string;
  readonly timezone?: string;
}

/** Hub extension: one search the provider ran (Anthropic's `server_tool_use` for web_search). */
export interface ChatWebSearchCall {
  readonly id: string;
  readonly query: string;
}

export type ChatToolChoice =
  'none' | 'auto' | 'required' | { readonly type: 'function'; readonly function: { readonly name: string } };

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly stop?: string | readonly string[];
  readonly n?: number;
  readonly tools?: readonly ChatTool[];
  readonly tool_choice?: ChatToolChoice;
  readonly parallel_tool_calls?: boolean;
  readonly user?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Hub extension: Anthropic's thinking setting, carried to providers that understand it. */
  readonly thinking?:
    { readonly type: 'enabled'; readonly budget_tokens: number } | { readonly type: 'disabled' };
  /** Hub extension: a provider-run web search (see `ChatWebSearch`). */
  readonly web_search?: ChatWebSearch;
  readonly response_format?: Readonly<Record<string, unknown>>;
  readonly seed?: number;
  readonly presence_penalty?: number;
  readonly frequency_penalty?: number;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: ChatPromptTokensDetails;
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number };
}

/**
 * OpenAI's prompt details plus two hub extension fields: cache writes, which OpenAI's chat format
 * has no field for and Anthropic bills by TTL. Like `cached_tokens`, they are parts of
 * `prompt_tokens`. They cross the hub only: OpenAI-format clients get them as OpenAI names them
 * (`openai.clientChatUsage`), never under these names.
 */
export interface ChatPromptTokensDetails {
  readonly cached_tokens?: number;
  /** Hub extension: prompt tokens written to the cache for 5 minutes. */
  readonly cache_write_5m_tokens?: number;
  /** Hub extension: prompt tokens written to the cache for 1 hour. */
  readonly cache_write_1h_tokens?: number;
}

export interface ChatCompletionMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly refusal?: string | null;
  readonly tool_calls?: readonly ChatToolCall[];
  readonly reasoning_content?: string;
  readonly thinking_blocks?: readonly ThinkingBlock[];
  /** Hub extension: the searches the provider ran before answering, in order. */
  readonly web_search_calls?: readonly ChatWebSearchCall[];
}

export interface ChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly message: ChatCompletionMessage;
    readonly finish_reason: ChatFinishReason | null;
  }[];
  readonly usage?: ChatUsage;
  readonly system_fingerprint?: string | null;
}

export interface ChatToolCallDelta {
  readonly index: number;
  readonly id?: string;
  readonly type?: 'function';
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

export interface ChatDelta {
  readonly role?: 'assistant';
  readonly content?: string | null;
  readonly refusal?: string | null;
  readonly tool_calls?: readonly ChatToolCallDelta[];
  readonly reasoning_content?: string;
  /** Streamed with a thinking block's end: its signature (the text came as reasoning_content). */
  readonly thinking_blocks?: readonly ThinkingBlock[];
  /** Hub extension: a search the provider ran, sent once its query is complete. */
  readonly web_search_calls?: readonly ChatWebSearchCall[];
}

export interface ChatChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly delta: ChatDelta;
    readonly finish_reason: ChatFinishReason | null;
  }[];
  /** Only on the last chunk (with `choices: []`) when usage was asked for; otherwise absent. */
  readonly usage?: ChatUsage | null;
}
