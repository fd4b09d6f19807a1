import { type ClientApi } from '../src/adapter.js';
import { bodyTarget, missingParameter, streamFlagInvalid } from '../src/client-api-support.js';
import { list } from '../src/content-parts.js';
import { type JsonObject } from '../src/types.js';
import { anthropicMessage, systemInstructions } from './content.js';
import { countMessagesTokens, countTokensInvalid } from './count-tokens.js';
import { messagesClient } from './adapter.js';
import { messagesSession } from './client-session.js';
import { invalid } from './wire.js';

const inputContent = (body: JsonObject): ReturnType<ClientApi['inputContent']> => ({
  system: systemInstructions(body.system),
  messages: list(body.messages).map(anthropicMessage),
});

/** Anthropic's SDKs send the key in `x-api-key`; some clients (proxies, curl) use a bearer token. */
const keySources: ClientApi['keySources'] = ['authorization', 'x-api-key'];

/** `POST /v1/messages`, with Anthropic's own messages for what it refuses. */
export const messagesApi: ClientApi = {
  name: 'messages',
  route: '/v1/messages',
  errors: 'anthropic',
  keySources,
  streams: true,
  target: bodyTarget,
  validate: (body) => {
    for (const field of ['model', 'max_tokens', 'messages'] as const)
      if (body[field] === undefined) return missingParameter(field);
    if (!Array.isArray(body.messages)) return invalid('messages', 'messages: Input should be a valid list');
    const max = body.max_tokens;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
      return invalid('max_tokens', 'max_tokens: Input should be an integer greater than or equal to 1');
    }
    return streamFlagInvalid(body);
  },
  hub: messagesClient,
  includeUsage: () => true,
  inputContent,
  session: messagesSession,
};

/**
 * `POST /v1/messages/count_tokens`: upstream at providers that speak Messages natively, counted
 * here with the model family's tokenizer for the others. Never translated.
 */
export const countTokensApi: ClientApi = {
  name: 'count_tokens',
  route: '/v1/messages/count_tokens',
  errors: 'anthropic',
  keySources,
  streams: false,
  target: (body) => ({ model: body.model, stream: false }),
  validate: countTokensInvalid,
  hub: null,
  includeUsage: () => true,
  inputContent,
  localCount: {
    count: (body, _target, family) => countMessagesTokens(body, family),
    answer: (tokens) => ({ input_tokens: tokens }),
  },
};
