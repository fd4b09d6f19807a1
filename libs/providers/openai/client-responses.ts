import { type ClientFormat } from '../src/translation.js';
import { responsesToHub } from './client-responses-request.js';
import { responseFromHub } from './client-responses-response.js';
import { responsesStream } from './client-responses-stream.js';

/**
 * The Responses API client format, served through the hub by chat-style providers. Stored state
 * (`previous_response_id`, conversations) and OpenAI's built-in tools cannot be: those get a 400.
 */
export const responsesClient: ClientFormat = {
  name: 'responses',
  vendorHeaders: ['openai-beta'],
  toHub: responsesToHub,
  fromHub: responseFromHub,
  streamFromHub: responsesStream,
};
