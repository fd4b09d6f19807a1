import { type NativeRoute } from '../src/adapter.js';
import { prepareModelOnly } from '../src/client-api-support.js';
import { ANTHROPIC_COUNT_TOKENS_PATH, ANTHROPIC_MESSAGES_PATH } from './endpoint.js';
import { usageFromMessage } from './usage.js';
import { messagesWire } from './wire-format.js';

/** Messages: usage comes in the stream unasked, so only the model changes. */
export const messagesRoute: NativeRoute = {
  path: () => ANTHROPIC_MESSAGES_PATH,
  wire: messagesWire,
  prepare: prepareModelOnly,
  usageOfBody: usageFromMessage,
  usageMember: 'usage',
};

/** Token counting is free: its answer (`{ input_tokens }`) is no usage to charge. */
export const countTokensRoute: NativeRoute = {
  path: () => ANTHROPIC_COUNT_TOKENS_PATH,
  wire: null,
  prepare: prepareModelOnly,
  usageOfBody: () => null,
  usageMember: null,
};
