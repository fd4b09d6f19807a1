import { type ClientApi } from '../src/adapter.js';
import { headerText, stringField } from '../src/client-api-support.js';

/**
 * `prompt_cache_key` is OpenAI's own key for keeping requests that share a prefix on one cache
 * (Chat Completions and Responses take it); Codex sets it to its session id.
 */
export const chatSession: NonNullable<ClientApi['session']> = (body) => stringField(body, 'prompt_cache_key');

/** Codex also sends its session id in a `session-id` header. */
export const responsesSession: NonNullable<ClientApi['session']> = (body, headers) =>
  stringField(body, 'prompt_cache_key') ?? headerText(headers, 'session-id');
