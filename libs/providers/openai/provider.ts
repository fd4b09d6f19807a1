import { type ChatChunk, type ChatCompletion, type ChatUsage } from '../src/chat.js';
import { streamedObject } from '../src/translation-errors.js';
import { type ProviderFormat, type SseEvent, type StreamTransform } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { isObject, upstreamError } from './fields.js';
import { chatRequestFromHub, type OpenAIChatProfile } from './request.js';
import { hubUsageOfOpenAI } from './usage.js';
import { chatWire } from './wire-format.js';

export { type OpenAIChatProfile };

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
  const parsed = streamedObject(data, 'The provider');
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

/**
 * An OpenAI-style `/chat/completions` provider format for the given vendor profile: the request
 * as `request.ts` writes it, the answer and its stream read back here.
 */
export function openAIChatFormat(profile: OpenAIChatProfile = {}): ProviderFormat {
  return {
    name: 'openai-chat',
    wire: chatWire,
    fromHub: chatRequestFromHub(profile),
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
