/**
 * The vendors' refusals of a prompt longer than the model's context window (`contextWindow`),
 * each in its own shape and words: what a gateway's fallback to a larger model reads. Counted as
 * the mock counts prompts everywhere (4 characters a token), after the request's validation, as
 * the vendors count a request only once it is well formed.
 */
import { anthropicError, openAIError } from './errors.js';
import { geminiInvalid } from './gemini-errors.js';
import type { MockBehaviour } from './behaviour.js';
import type { JsonReply } from './types.js';

/** Whether a prompt of `promptTokens` is more than the mock's model takes. */
export const tooLong = (behaviour: MockBehaviour, promptTokens: number): boolean =>
  behaviour.contextWindow !== null && promptTokens > behaviour.contextWindow;

const CODE = 'context_length_exceeded';

/** Chat Completions: a 400 before any stream begins. */
export function chatTooLong(window: number, promptTokens: number): JsonReply {
  return openAIError(
    400,
    `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
    'invalid_request_error',
    { param: 'messages', code: CODE },
  );
}

/** Legacy Completions: the prompt and the completion's budget together. */
export function completionsTooLong(window: number, promptTokens: number, maxTokens: number): JsonReply {
  return openAIError(
    400,
    `This model's maximum context length is ${window} tokens, however you requested ${promptTokens + maxTokens} tokens (${promptTokens} in your prompt; ${maxTokens} for the completion). Please reduce your prompt; or completion length.`,
    'invalid_request_error',
    { param: null, code: CODE },
  );
}

/** The Responses API's message, on its 400 and on the `response.failed` of a stream. */
export const RESPONSES_TOO_LONG =
  'Your input exceeds the context window of this model. Please adjust your input and try again.';

/** The Responses API without `stream`: a 400. (A stream fails in-band: openai-responses-stream.ts.) */
export function responsesTooLong(): JsonReply {
  return openAIError(400, RESPONSES_TOO_LONG, 'invalid_request_error', { param: 'input', code: CODE });
}

/** Messages, stream or not: a 400 before any event. */
export function messagesTooLong(window: number, promptTokens: number): JsonReply {
  return anthropicError(
    400,
    'invalid_request_error',
    `prompt is too long: ${promptTokens} tokens > ${window} maximum`,
  );
}

/** generateContent and streamGenerateContent: a 400 INVALID_ARGUMENT before any chunk. */
export function geminiTooLong(window: number, promptTokens: number): JsonReply {
  return geminiInvalid(
    `The input token count (${promptTokens}) exceeds the maximum number of tokens allowed (${window}).`,
  );
}
