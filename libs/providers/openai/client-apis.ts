import { type ClientApi, type InputContent } from '../src/adapter.js';
import { bodyTarget, missingParameter, streamFlagInvalid } from '../src/client-api-support.js';
import { list, str, text } from '../src/content-parts.js';
import { type ClientFormat } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { chatClient } from './client-chat.js';
import { completionsClient } from './client-completions.js';
import { responsesClient } from './client-responses.js';
import { chatSession, responsesSession } from './client-session.js';
import { responsesSocket } from './responses-socket.js';
import { chatMessage, promptMessages, responsesInput } from './content.js';

type OpenAIApiName = 'chat' | 'completions' | 'responses' | 'embeddings';

const present = (field: string) => (body: JsonObject) => (body[field] === undefined ? field : null);

/** The first required field a body lacks, or null, per client API. */
export const missingField: Readonly<Record<OpenAIApiName, (body: JsonObject) => string | null>> = {
  chat: (body) => (Array.isArray(body.messages) ? null : 'messages'),
  completions: (body) => present('model')(body) ?? present('prompt')(body),
  embeddings: (body) => present('model')(body) ?? present('input')(body),
  responses: (body) => present('model')(body) ?? present('input')(body),
};

interface OpenAIApiSpec {
  readonly name: OpenAIApiName;
  /** The client-facing route, also the log row's `endpoint`. */
  readonly route: string;
  readonly streams: boolean;
  readonly hub: ClientFormat | null;
  readonly inputContent: (body: JsonObject) => InputContent;
  /** Whether the client chooses a translated stream's usage event (`stream_options.include_usage`). */
  readonly choosesUsage: boolean;
  readonly session?: ClientApi['session'];
  readonly socket?: ClientApi['socket'];
}

/** OpenAI's client APIs: key in `Authorization: Bearer`, errors in OpenAI's shape, model and stream in the body. */
function api({
  name,
  route,
  streams,
  hub,
  inputContent,
  choosesUsage,
  session,
  socket,
}: OpenAIApiSpec): ClientApi {
  const missing = missingField[name];
  return {
    name,
    route,
    errors: 'openai',
    keySources: ['authorization'],
    streams,
    target: bodyTarget,
    validate: (body) => {
      const field = missing(body);
      return field !== null ? missingParameter(field) : streamFlagInvalid(body);
    },
    hub,
    // Chat and completions clients choose (`stream_options.include_usage`); Responses always has it.
    includeUsage: (body) =>
      !choosesUsage ||
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
    inputContent,
    session,
    socket,
  };
}

const none = (messages: InputContent['messages']): InputContent => ({ system: null, messages });

export const chatApi = api({
  name: 'chat',
  route: '/v1/chat/completions',
  streams: true,
  hub: chatClient,
  inputContent: (b) => none(list(b.messages).map(chatMessage)),
  choosesUsage: true,
  session: chatSession,
});
export const completionsApi = api({
  name: 'completions',
  route: '/v1/completions',
  streams: true,
  hub: completionsClient,
  inputContent: (b) => none(promptMessages(b.prompt)),
  choosesUsage: true,
});
export const responsesApi = api({
  name: 'responses',
  route: '/v1/responses',
  streams: true,
  hub: responsesClient,
  inputContent: (b) => {
    const instructions = str(b.instructions);
    return { system: instructions === null ? null : [text(instructions)], messages: responsesInput(b.input) };
  },
  choosesUsage: false,
  session: responsesSession,
  socket: responsesSocket,
});
export const embeddingsApi = api({
  name: 'embeddings',
  route: '/v1/embeddings',
  streams: false,
  hub: null,
  inputContent: (b) => none(promptMessages(b.input)),
  choosesUsage: false,
});
