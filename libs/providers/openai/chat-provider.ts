import {
  type ChatChunk,
  type ChatCompletion,
  type ChatMessage,
  type ChatRequest,
  type ChatUsage,
} from '../src/chat.js';
import { type Adjustments, untracked } from '../src/adjustments.js';
import { type ProviderFormat, type SseEvent, type StreamTransform } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { OPENAI_PATHS } from './endpoint.js';
import { isObject, notTranslatable, upstreamError } from './fields.js';
import { hubUsageOfOpenAI } from './usage.js';
import { chatWire } from './wire-format.js';

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

/** Usage as a chunk carries it: OpenAI's `usage`, or Groq's `x_groq.usage`. */
const chunkUsage = (chunk: JsonObject): ChatUsage | undefined =>
  hubUsageOfOpenAI(chunk.usage) ??
  (isObject(chunk.x_groq) ? hubUsageOfOpenAI(chunk.x_groq.usage) : undefined);

/**
 * Ollama, vLLM, Groq and OpenRouter name the reasoning text `reasoning`; the hub names it
 * `reasoning_content` (DeepSeek's name). The vendor's own field stays for a chat client.
 */
function withReasoning(choices: unknown, key: 'message' | 'delta'): unknown {
  if (!Array.isArray(choices)) return choices;
  return choices.map((choice: unknown) => {
    if (!isObject(choice) || !isObject(choice[key])) return choice;
    const inner = choice[key];
    if (typeof inner.reasoning !== 'string' || inner.reasoning_content !== undefined) return choice;
    return { ...choice, [key]: { ...inner, reasoning_content: inner.reasoning } };
  });
}

function parseChunk(data: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw upstreamError('The provider sent a stream event that is not JSON.');
  }
  if (!isObject(parsed)) throw upstreamError('The provider sent a stream event that is not an object.');
  if (parsed.error !== undefined)
    throw upstreamError(errorText(parsed) ?? 'The provider reported an error mid-stream.');
  if (!Array.isArray(parsed.choices))
    throw upstreamError('The provider sent a stream chunk without choices.');
  return parsed;
}

/**
 * Upstream chunks -> hub chunks. Vendors place usage differently (OpenAI: a last chunk with no
 * choices; Perplexity: on every chunk; Groq: `x_groq.usage`), so usage is taken off every chunk,
 * the latest kept, and emitted once as the hub's closing usage chunk.
 */
function chatStreamToHub(): StreamTransform<SseEvent, ChatChunk> {
  let usage: ChatUsage | undefined;
  /** The upstream's own usage chunk, kept as sent; otherwise one is made from the last chunk. */
  let usageChunk: JsonObject | undefined;
  let last: JsonObject | undefined;
  let closed = false;
  const close = (): ChatChunk[] => {
    if (closed || !usage || !last) return [];
    closed = true;
    const { id, object, created, model } = usageChunk ?? last;
    const base = usageChunk ?? { id, object, created, model };
    return [{ ...base, choices: [], usage } as unknown as ChatChunk];
  };
  return {
    push(event) {
      if (event.data === '[DONE]') return close();
      const chunk = parseChunk(event.data);
      const seen = chunkUsage(chunk);
      usage = seen ?? usage;
      last = chunk;
      const { usage: _u, x_groq: _x, ...rest } = chunk;
      if (seen && (chunk.choices as unknown[]).length === 0) {
        usageChunk = rest;
        return [];
      }
      return [{ ...rest, choices: withReasoning(rest.choices, 'delta') } as unknown as ChatChunk];
    },
    end: close,
  };
}

function errorText(body: unknown): string | null {
  if (!isObject(body)) return null;
  const error = body.error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error; // Ollama
  if (typeof body.message === 'string') return body.message; // vLLM
  if (typeof body.detail === 'string') return body.detail;
  return null;
}

/** An OpenAI-style `/chat/completions` provider format for the given vendor profile. */
export function openAIChatFormat(profile: OpenAIChatProfile = {}): ProviderFormat {
  return {
    name: 'openai-chat',
    wire: chatWire,
    fromHub: (req, upstreamModel, adjust = untracked()) => ({
      path: OPENAI_PATHS.chatCompletions,
      body: requestBody(req, upstreamModel, profile, adjust),
      headers: {},
    }),
    toHub(body) {
      if (!isObject(body) || !Array.isArray(body.choices)) {
        throw upstreamError('The provider returned a body that is not a chat completion.');
      }
      const usage = hubUsageOfOpenAI(body.usage);
      const choices = withReasoning(body.choices, 'message');
      return { ...body, choices, ...(usage && { usage }) } as unknown as ChatCompletion;
    },
    streamToHub: chatStreamToHub,
    errorMessage: errorText,
  };
}

/** OpenAI itself: hub extensions stripped, the output limit sent as `max_completion_tokens`. */
export const openAIChatProvider: ProviderFormat = openAIChatFormat();
