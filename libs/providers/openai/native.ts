import { type NativeRoute, type WireFormat } from '../src/adapter.js';
import {
  type OpenAIEndpoint,
  chatCompletionsEndpoint,
  completionsEndpoint,
  embeddingsEndpoint,
  responsesEndpoint,
} from './endpoints.js';
import { prepareModelOnly, withoutNullUsage } from './prepare.js';
import { chatWire, responsesWire } from './wire-format.js';

/** The OpenAI wire's own endpoints, passed through with the model swapped (endpoints.ts). */
const route = (e: OpenAIEndpoint, wire: WireFormat, asksUsage: boolean): NativeRoute => ({
  path: () => e.path,
  wire,
  prepare: (body, model) => e.prepareRequest(body, model),
  usageOfBody: (body) => e.usageFromBody(body),
  ...(asksUsage ? { withoutUnaskedUsage: withoutNullUsage } : {}),
});

export const chatRoute = route(chatCompletionsEndpoint, chatWire, true);
export const completionsRoute = route(completionsEndpoint, chatWire, true);
/** Embeddings never stream; their body reads as chat's does (`usage.prompt_tokens`, a model). */
export const embeddingsRoute = route(embeddingsEndpoint, chatWire, false);
export const responsesRoute = route(responsesEndpoint, responsesWire, false);

/**
 * Chat at a vendor that puts usage on every chunk unasked and is not sent `stream_options` (as
 * its provider format does not send it either): only the model changes.
 */
export const modelOnlyChatRoute: NativeRoute = {
  ...route(chatCompletionsEndpoint, chatWire, false),
  prepare: prepareModelOnly,
};
