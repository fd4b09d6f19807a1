import { type ChatMessage, type ChatRequest } from '../src/chat.js';
import { type Adjustments, untracked } from '../src/adjustments.js';
import { type ProviderFormat } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { notTranslatable } from './fields.js';
import { OPENAI_PATHS } from './native.js';

/** How one OpenAI-style vendor differs from OpenAI itself on `/chat/completions`. */
export interface OpenAIChatProfile {
  /** Keep `reasoning_content`, `thinking_blocks` and `thinking` (vendors that read them back). */
  readonly keepHubExtensions?: boolean;
  /** Top-level request fields the vendor rejects; removed before sending. */
  readonly omit?: readonly string[];
  /** Top-level request fields set when the request has none. */
  readonly defaults?: Readonly<JsonObject>;
  /** Which name the output limit goes by (OpenAI's reasoning models refuse `max_tokens`). */
  readonly maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
}

/** Anthropic's thinking budget mapped to the nearest OpenAI reasoning effort. */
function effortFor(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4096) return 'low';
  if (budgetTokens < 16384) return 'medium';
  return 'high';
}

const stripExtensions = ({ reasoning_content: _r, thinking_blocks: _t, ...m }: ChatMessage): ChatMessage => m;

function requestBody(
  req: ChatRequest,
  upstreamModel: string,
  profile: OpenAIChatProfile,
  adjust: Adjustments,
): JsonObject {
  const { thinking, max_tokens, max_completion_tokens, stream_options, web_search, ...rest } = req;
  // No chat-format vendor runs a search for a tool: the hub's web search goes, recorded under the
  // client's tool (as it was before any provider could carry it; refused when strict).
  if (web_search) {
    const { param, kind } = web_search;
    adjust.drop(
      param,
      () => notTranslatable(`${param}.type`, `built-in tools such as '${kind}' run only at OpenAI`),
      kind,
    );
  }
  const body: JsonObject = { ...profile.defaults, ...rest, model: upstreamModel };
  const limit = max_completion_tokens ?? max_tokens;
  if (limit !== undefined) body[profile.maxTokensParam ?? 'max_completion_tokens'] = limit;
  // OpenAI refuses stream_options on a non-stream request; a stream always asks for usage.
  if (req.stream) body.stream_options = { ...stream_options, include_usage: true };
  if (profile.keepHubExtensions) {
    if (thinking) body.thinking = thinking;
  } else {
    body.messages = req.messages.map(stripExtensions);
    if (thinking?.type === 'enabled' && req.reasoning_effort === undefined) {
      body.reasoning_effort = effortFor(thinking.budget_tokens);
    }
  }
  for (const field of profile.omit ?? []) {
    if (body[field] === undefined) continue;
    // The vendor rejects it; it never changes the answer's shape, so strict drops it too.
    adjust.drop(field);
    delete body[field];
  }
  return body;
}

/** Hub -> an OpenAI-style `/chat/completions` request, as the vendor's profile wants it. */
export const chatRequestFromHub =
  (profile: OpenAIChatProfile): ProviderFormat['fromHub'] =>
  (req, upstreamModel, adjust = untracked()) => ({
    path: OPENAI_PATHS.chatCompletions,
    body: requestBody(req, upstreamModel, profile, adjust),
    headers: {},
  });
