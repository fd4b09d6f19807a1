import { GatewayError } from '#libs/protocol';
import { anthropic, openai, type CanonicalUsage, type JsonObject } from '#libs/providers';
import { type StreamWireFormat } from './stream-meter.js';

/**
 * A client endpoint served by a provider of the same wire format: the body passes through
 * unchanged but for the model name (unknown fields included), and the answer passes back byte for
 * byte. The OpenAI descriptors live with the OpenAI adapter; the Messages one is here.
 */
export interface NativeEndpoint {
  /** Upstream path relative to the provider's base URL. */
  readonly path: string;
  /** The wire format of its stream (null: the endpoint does not stream). */
  readonly streamFormat: StreamWireFormat | null;
  /** Whether the gateway added `include_usage` that the client did not ask for, so chunks carry `"usage":null`. */
  readonly stripsNullUsage: boolean;
  /** What is wrong with the body before any provider sees it, or null. */
  validate(body: JsonObject): GatewayError | null;
  prepareRequest(body: JsonObject, upstreamModel: string): openai.PreparedRequest;
  usageFromBody(body: unknown): CanonicalUsage | null;
}

const fromOpenAI = (
  e: openai.OpenAIEndpoint,
  streamFormat: StreamWireFormat | null,
  stripsNullUsage: boolean,
): NativeEndpoint => ({
  path: e.path,
  streamFormat,
  stripsNullUsage,
  validate: (body) => missing(e.missingField(body)),
  prepareRequest: (body, model) => e.prepareRequest(body, model),
  usageFromBody: (body) => e.usageFromBody(body),
});

export const nativeChat = fromOpenAI(openai.chatCompletionsEndpoint, 'openai-chat', true);
/**
 * Perplexity puts usage on every chunk unasked and is not sent `stream_options` (as its provider
 * format does not send it either): only the model changes.
 */
export const nativePerplexityChat: NativeEndpoint = {
  ...nativeChat,
  prepareRequest: (body, model) => openai.prepareModelOnly(body, model),
};

export const nativeCompletions = fromOpenAI(openai.completionsEndpoint, 'openai-chat', true);
export const nativeEmbeddings = fromOpenAI(openai.embeddingsEndpoint, null, false);
export const nativeResponses = fromOpenAI(openai.responsesEndpoint, 'openai-responses', false);

/** Anthropic Messages: usage comes in the stream unasked, so only the model changes. */
export const nativeMessages: NativeEndpoint = {
  path: '/v1/messages',
  streamFormat: 'anthropic',
  stripsNullUsage: false,
  validate: (body) => {
    for (const field of ['model', 'max_tokens', 'messages'] as const)
      if (body[field] === undefined) return missing(field);
    if (!Array.isArray(body.messages)) return invalid('messages', 'messages: Input should be a valid list');
    const max = body.max_tokens;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
      return invalid('max_tokens', 'max_tokens: Input should be an integer greater than or equal to 1');
    }
    return null;
  },
  prepareRequest: (body, model) => openai.prepareModelOnly(body, model),
  usageFromBody: anthropic.usageFromMessage,
};

/** Anthropic token counting: free, so its answer (`{ input_tokens }`) is no usage to charge. */
export const nativeCountTokens: NativeEndpoint = {
  path: anthropic.ANTHROPIC_COUNT_TOKENS_PATH,
  streamFormat: null,
  stripsNullUsage: false,
  validate: anthropic.countTokensInvalid,
  prepareRequest: (body, model) => openai.prepareModelOnly(body, model),
  usageFromBody: () => null,
};

const missing = (field: string | null): GatewayError | null =>
  field === null
    ? null
    : new GatewayError('invalid_request', `Missing required parameter: '${field}'.`, { param: field });

const invalid = (param: string, message: string): GatewayError =>
  new GatewayError('invalid_request', message, { param });
