import { type ProviderFormat } from '../src/translation.js';
import { anthropicRequestOf } from './request.js';
import { anthropicErrorMessage, hubCompletionOf } from './response.js';
import { anthropicStreamToHub } from './stream.js';

export * from './endpoint.js';
export { anthropicUsageOf, finishReasonOf, hubUsageOf, stopReasonOf } from './mapping.js';
export { anthropicRequestOf } from './request.js';
export { anthropicErrorMessage, hubCompletionOf } from './response.js';
export { anthropicStreamToHub } from './stream.js';

/** An OpenAI-format client (through the hub) served by an Anthropic Messages provider. */
export const anthropicProvider: ProviderFormat = {
  name: 'anthropic',
  fromHub: anthropicRequestOf,
  toHub: hubCompletionOf,
  streamToHub: anthropicStreamToHub,
  errorMessage: anthropicErrorMessage,
};
