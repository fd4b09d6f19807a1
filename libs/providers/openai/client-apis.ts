import { type ClientApi, type InputContent } from '../src/adapter.js';
import { bodyTarget, missingParameter, streamFlagInvalid } from '../src/client-api-support.js';
import { list, str, text } from '../src/content-parts.js';
import { type ClientFormat } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { chatClient } from './chat-client.js';
import { completionsClient } from './completions-client.js';
import { chatMessage, promptMessages, responsesInput } from './content.js';
import {
  chatCompletionsEndpoint,
  completionsEndpoint,
  embeddingsEndpoint,
  type OpenAIEndpoint,
  responsesEndpoint,
} from './endpoints.js';
import { responsesClient } from './responses-client.js';

/** OpenAI's client APIs: key in `Authorization: Bearer`, errors in OpenAI's shape, model and stream in the body. */
function api(
  e: OpenAIEndpoint,
  name: ClientApi['name'],
  hub: ClientFormat | null,
  inputContent: (body: JsonObject) => InputContent,
  choosesUsage: boolean,
): ClientApi {
  return {
    name,
    route: e.route,
    errors: 'openai',
    keySources: ['authorization'],
    streams: e.streams,
    target: bodyTarget,
    validate: (body) => {
      const missing = e.missingField(body);
      return missing !== null ? missingParameter(missing) : streamFlagInvalid(body);
    },
    hub,
    // Chat and completions clients choose (`stream_options.include_usage`); Responses always has it.
    includeUsage: (body) =>
      !choosesUsage ||
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
    inputContent,
  };
}

const none = (messages: InputContent['messages']): InputContent => ({ system: null, messages });

export const chatApi = api(
  chatCompletionsEndpoint,
  'chat',
  chatClient,
  (b) => none(list(b.messages).map(chatMessage)),
  true,
);
export const completionsApi = api(
  completionsEndpoint,
  'completions',
  completionsClient,
  (b) => none(promptMessages(b.prompt)),
  true,
);
export const responsesApi = api(
  responsesEndpoint,
  'responses',
  responsesClient,
  (b) => {
    const instructions = str(b.instructions);
    return { system: instructions === null ? null : [text(instructions)], messages: responsesInput(b.input) };
  },
  false,
);
export const embeddingsApi = api(
  embeddingsEndpoint,
  'embeddings',
  null,
  (b) => none(promptMessages(b.input)),
  false,
);
