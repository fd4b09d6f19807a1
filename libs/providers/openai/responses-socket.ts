import { ERROR_CATALOGUE, GatewayError } from '#libs/protocol';
import {
  type AnsweredResponse,
  type SessionError,
  type SessionEvent,
  type SessionProtocol,
  type SessionRefusal,
  type Turn,
} from '../src/session-protocol.js';
import { type JsonObject } from '../src/types.js';

/**
 * OpenAI's Responses API over a WebSocket (`GET /v1/responses` upgraded; the wire of the SDK's
 * `ResponsesWS`): the client sends `response.create` events carrying a `POST /v1/responses` body
 * (`stream` implied, `background` refused), and reads every event of the SSE stream as one text
 * message. Errors are `{"type":"error","status":...,"error":{type,code,message,param}}`, which the
 * SDK turns into a `WebSocketError` carrying the event.
 */
export const responsesSocket: SessionProtocol = {
  readEvent,
  errorEvent,
  refusal: (kind, message) => ({ ...REFUSALS[kind], message }),
  // The Responses stream has no terminator; a `[DONE]` from a chat-shaped path is not an event.
  message: (data) => (data === '[DONE]' ? null : data),
  bodyEvent,
  answered,
  turn,
  withHistory: (body, history) => {
    const { previous_response_id: _dropped, ...rest } = body;
    return { ...rest, input: history as unknown[] };
  },
};

/** OpenAI's codes where it has one (`previous_response_not_found`, the 60-minute limit's). */
const REFUSALS: Readonly<Record<SessionRefusal, Omit<SessionError, 'message'>>> = {
  unknown_previous: invalid('previous_response_not_found', 'previous_response_id'),
  conversation_full: invalid('conversation_too_large', 'previous_response_id'),
  queue_full: invalid('too_many_queued_requests', null),
  message_too_large: invalid('message_too_large', null),
  binary_message: invalid('invalid_message', null),
  session_expired: invalid('websocket_connection_limit_reached', null),
  key_revoked: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key', param: null },
  shutting_down: { status: 503, type: 'api_error', code: 'server_shutting_down', param: null },
};

function invalid(code: string, param: string | null): Omit<SessionError, 'message'> {
  return { status: 400, type: 'invalid_request_error', code, param };
}

/** Fields of the event that are the socket's envelope, never part of the request's body. */
const ENVELOPE = new Set(['type', 'stream_id']);

const refused = (code: string, message: string, param: string | null = null): SessionEvent => ({
  kind: 'refused',
  error: { status: 400, type: 'invalid_request_error', code, message, param },
});

function readEvent(text: string): SessionEvent {
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    return refused('invalid_json', 'The message is not valid JSON; each event is one JSON object.');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    return refused('invalid_event', 'Each event must be a JSON object with a string `type`.', 'type');
  }
  const type = (event as JsonObject).type;
  if (type !== 'response.create') {
    const named = typeof type === 'string' ? `'${type.slice(0, 100)}'` : 'missing';
    return refused(
      'invalid_event',
      `Unsupported event type ${named}: this socket takes response.create.`,
      'type',
    );
  }
  const body: JsonObject = {};
  for (const [name, value] of Object.entries(event as JsonObject)) {
    if (!ENVELOPE.has(name)) body[name] = value;
  }
  if (body.background === true) {
    return refused('invalid_value', 'background is not supported over a WebSocket.', 'background');
  }
  // Every response on the socket streams, whatever the event said.
  body.stream = true;
  return { kind: 'request', body };
}

function errorEvent(err: SessionError | GatewayError): string {
  const e: SessionError =
    err instanceof GatewayError
      ? {
          status: err.status,
          type: ERROR_CATALOGUE[err.code].openaiType,
          code: err.code,
          message: err.message,
          param: err.details.param ?? null,
        }
      : err;
  return JSON.stringify({
    type: 'error',
    status: e.status,
    error: { type: e.type, code: e.code, message: e.message, param: e.param },
  });
}

/**
 * A whole answer: a refusal (`{"error":{...}}`, passed through from the upstream) becomes the
 * error event with its status; a response, its `response.completed`.
 */
function bodyEvent(status: number, body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = null;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (status >= 400 || parsed === null) {
    const described =
      typeof error === 'object' && error !== null
        ? error
        : { type: 'api_error', code: null, message: `The provider answered HTTP ${status}.`, param: null };
    return JSON.stringify({ type: 'error', status, error: described });
  }
  return JSON.stringify({ type: 'response.completed', response: parsed });
}

/** The events whose `response` is whole: what the next turn continues from. */
const FINAL = ['"response.completed"', '"response.incomplete"'];

function answered(data: string): AnsweredResponse | null {
  // Most events are deltas: only one naming a final type is parsed.
  if (!FINAL.some((type) => data.includes(type))) return null;
  let event: JsonObject;
  try {
    event = JSON.parse(data) as JsonObject;
  } catch {
    return null;
  }
  if (event.type !== 'response.completed' && event.type !== 'response.incomplete') return null;
  const response = event.response as JsonObject | undefined;
  if (typeof response?.id !== 'string' || !Array.isArray(response.output)) return null;
  return { id: response.id, output: response.output.map(withoutId) };
}

/**
 * An output item as the next input takes it: without its `id`. The upstream is asked over HTTP
 * per turn and stores nothing it could look an id up in (OpenAI refuses an input item whose id it
 * did not store); Codex drops them too when it sends its history back.
 */
function withoutId(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || !('id' in item)) return item;
  const { id: _dropped, ...rest } = item as JsonObject;
  return rest;
}

function turn(body: JsonObject): Turn {
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
  const input = body.input;
  const items =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: input }]
      : Array.isArray(input)
        ? input
        : [];
  return { previous, items };
}
