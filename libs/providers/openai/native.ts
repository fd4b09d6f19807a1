import { type NativeRoute, type PreparedRequest } from '../src/adapter.js';
import { prepareModelOnly } from '../src/client-api-support.js';
import { type JsonObject } from '../src/types.js';
import { usageFromChatCompletion, usageFromResponse } from './usage.js';
import { chatWire, responsesWire } from './wire-format.js';

export { prepareModelOnly };

/** Paths relative to an OpenAI-style base URL (which already ends in /v1 for OpenAI itself). */
export const OPENAI_PATHS = {
  chatCompletions: '/chat/completions',
  completions: '/completions',
  responses: '/responses',
  embeddings: '/embeddings',
  models: '/models',
} as const;

/**
 * Chat completions passthrough: only the model may change, and a streaming request always asks
 * upstream for usage, since the log and the charge need exact token counts.
 */
export function prepareChatRequest(body: JsonObject, upstreamModel: string): PreparedRequest {
  const stream = body.stream === true;
  const options = isObject(body.stream_options) ? body.stream_options : undefined;
  const clientWantsUsage = stream && options?.include_usage === true;
  if (!stream || clientWantsUsage) {
    return {
      body: body.model === upstreamModel ? body : { ...body, model: upstreamModel },
      clientWantsUsage,
    };
  }
  // Object.assign, not a spread: V8 11 takes a slow path (about 1 µs) for a spread that adds a key.
  const streamOptions = Object.assign({}, options, { include_usage: true });
  return {
    body: Object.assign({}, body, { model: upstreamModel, stream_options: streamOptions }),
    clientWantsUsage,
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Removes a top-level `"usage":null` member from a raw chunk: the chunks a client that did not ask
 * for usage would have seen. A quote inside a JSON string is always escaped, so an unescaped
 * `"usage":null` is structural; chunks carry no nested `usage`.
 */
export function withoutNullUsage(raw: string): string {
  return raw.includes('"usage"') ? raw.replace(NULL_USAGE, '') : raw;
}

const NULL_USAGE = /,\s*"usage"\s*:\s*null(?=\s*[,}])|"usage"\s*:\s*null\s*,/;

/**
 * The OpenAI wire's own endpoints, passed through with the model swapped. Chat and legacy
 * completions ask a stream for usage on the client's behalf (`prepareChatRequest`), so they also
 * take the `"usage":null` that caused back out of the chunks.
 */
export const chatRoute: NativeRoute = {
  path: () => OPENAI_PATHS.chatCompletions,
  wire: chatWire,
  prepare: prepareChatRequest,
  usageOfBody: usageFromChatCompletion,
  usageMember: 'usage',
  withoutUnaskedUsage: withoutNullUsage,
};

/** Legacy completions: the chat rules hold (usage chunk with `choices: []`, then `[DONE]`). */
export const completionsRoute: NativeRoute = {
  ...chatRoute,
  path: () => OPENAI_PATHS.completions,
};

/** Embeddings never stream; their body reads as chat's does (`usage.prompt_tokens`, a model). */
export const embeddingsRoute: NativeRoute = {
  path: () => OPENAI_PATHS.embeddings,
  wire: chatWire,
  prepare: prepareModelOnly,
  usageOfBody: usageFromChatCompletion,
  usageMember: 'usage',
};

/** Responses: typed events, no `[DONE]`; usage rides on the terminal `response.*` event, always sent. */
export const responsesRoute: NativeRoute = {
  path: () => OPENAI_PATHS.responses,
  wire: responsesWire,
  prepare: prepareModelOnly,
  usageOfBody: usageFromResponse,
  usageMember: 'usage',
};

/**
 * Chat at a vendor that puts usage on every chunk unasked and is not sent `stream_options` (as
 * its provider format does not send it either): only the model changes.
 */
export const modelOnlyChatRoute: NativeRoute = {
  path: () => OPENAI_PATHS.chatCompletions,
  wire: chatWire,
  prepare: prepareModelOnly,
  usageOfBody: usageFromChatCompletion,
  usageMember: 'usage',
};
