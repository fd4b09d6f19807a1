import { type ClientFormat, type ProviderFormat } from '../src/translation.js';
import { hubRequestOfMessages } from './client-request.js';
import { messageOfCompletion } from './client-response.js';
import { messagesStreamFromHub } from './client-stream.js';
import { anthropicRequestOf } from './request.js';
import { anthropicErrorMessage, hubCompletionOf } from './response.js';
import { anthropicStreamToHub } from './stream.js';

export * from './endpoint.js';
export { countMessagesTokens, countTokensInvalid } from './count-tokens.js';
export { finishReasonOf, stopReasonOf } from './mapping.js';
export {
  AnthropicStreamUsage,
  anthropicUsageOf,
  canonicalOfHub,
  canonicalUsageOf,
  hubUsageOf,
  usageFromMessage,
} from './usage.js';
export { anthropicRequestOf } from './request.js';
export { anthropicErrorMessage, hubCompletionOf } from './response.js';
export { anthropicStreamToHub } from './stream.js';
export { hubRequestOfMessages } from './client-request.js';
export { messageOfCompletion } from './client-response.js';
export { messagesStreamFromHub } from './client-stream.js';

/** An OpenAI-format client (through the hub) served by an Anthropic Messages provider. */
export const anthropicProvider: ProviderFormat = {
  name: 'anthropic',
  fromHub: anthropicRequestOf,
  toHub: hubCompletionOf,
  streamToHub: anthropicStreamToHub,
  errorMessage: anthropicErrorMessage,
};

/** A client speaking Anthropic Messages (its SDK), served through the hub by another format. */
export const messagesClient: ClientFormat = {
  name: 'messages',
  vendorHeaders: ['anthropic-beta'],
  toHub: hubRequestOfMessages,
  fromHub: messageOfCompletion,
  streamFromHub: messagesStreamFromHub,
};
