import { type CanonicalUsage, type JsonObject } from '../src/types.js';
import { OPENAI_PATHS } from './endpoint.js';
import { type PreparedRequest } from '../src/adapter.js';
import { prepareChatRequest, prepareModelOnly } from './prepare.js';
import { usageFromChatCompletion, usageFromResponse } from './usage.js';
import { classifyChatStreamData, classifyResponsesStreamData, type OpenAIStreamEvent } from './stream.js';

/**
 * One OpenAI-format endpoint the gateway passes through unchanged but for the model name: what
 * the request must carry, how to prepare it, and where usage and the end of a stream are.
 */
export interface OpenAIEndpoint {
  /** The client-facing route, also the log row's `endpoint`. */
  readonly route: string;
  /** Upstream path relative to the provider's base URL. */
  readonly path: string;
  readonly streams: boolean;
  /** The first required field the body lacks, or null. */
  missingField(body: JsonObject): string | null;
  prepareRequest(body: JsonObject, upstreamModel: string): PreparedRequest;
  usageFromBody(body: unknown): CanonicalUsage | null;
  classifyStreamData(data: string): OpenAIStreamEvent;
}

const present = (field: string) => (body: JsonObject) => (body[field] === undefined ? field : null);
const noStream = (): OpenAIStreamEvent => ({ kind: 'chunk', usage: null });

export const chatCompletionsEndpoint: OpenAIEndpoint = {
  route: '/v1/chat/completions',
  path: OPENAI_PATHS.chatCompletions,
  streams: true,
  missingField: (body) => (Array.isArray(body.messages) ? null : 'messages'),
  prepareRequest: prepareChatRequest,
  usageFromBody: usageFromChatCompletion,
  classifyStreamData: classifyChatStreamData,
};

/** Legacy completions: the chat rules hold (usage chunk with `choices: []`, then `[DONE]`). */
export const completionsEndpoint: OpenAIEndpoint = {
  route: '/v1/completions',
  path: OPENAI_PATHS.completions,
  streams: true,
  missingField: (body) => present('model')(body) ?? present('prompt')(body),
  prepareRequest: prepareChatRequest,
  usageFromBody: usageFromChatCompletion,
  classifyStreamData: classifyChatStreamData,
};

export const embeddingsEndpoint: OpenAIEndpoint = {
  route: '/v1/embeddings',
  path: OPENAI_PATHS.embeddings,
  streams: false,
  missingField: (body) => present('model')(body) ?? present('input')(body),
  prepareRequest: prepareModelOnly,
  usageFromBody: usageFromChatCompletion,
  classifyStreamData: noStream,
};

/** Responses: typed events, no `[DONE]`; usage rides on the terminal `response.*` event. */
export const responsesEndpoint: OpenAIEndpoint = {
  route: '/v1/responses',
  path: OPENAI_PATHS.responses,
  streams: true,
  missingField: (body) => present('model')(body) ?? present('input')(body),
  prepareRequest: prepareModelOnly,
  usageFromBody: usageFromResponse,
  classifyStreamData: classifyResponsesStreamData,
};
