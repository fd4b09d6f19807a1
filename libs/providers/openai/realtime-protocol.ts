import { randomBytes } from 'node:crypto';
import {
  type RealtimeClientEvent,
  type RealtimeError,
  type RealtimeProtocol,
  type RealtimeServerEvent,
} from '../src/realtime.js';
import { isObject } from './fields.js';
import { usageFromRealtime } from './realtime-usage.js';

/**
 * OpenAI's Realtime API as clients speak it over a WebSocket (`/v1/realtime?model=...`), GA and
 * beta (`OpenAI-Beta: realtime=v1`) alike: every event is one JSON text frame with a `type`.
 * Audio deltas are the bulk of a session; they are never parsed: a frame is parsed only when its
 * text holds one of the few types read here (base64 audio holds no quote, so cannot).
 */

/** The subprotocol prefix a browser's SDK carries the key in (it cannot set headers). */
export const REALTIME_KEY_SUBPROTOCOL = 'openai-insecure-api-key.';
/** The subprotocol a browser's SDK asks the beta protocol with; as a header: `OpenAI-Beta: realtime=v1`. */
export const REALTIME_BETA_SUBPROTOCOL = 'openai-beta.realtime-v1';

/** Text deltas, GA and beta names: a response cut before its end is estimated on them. */
const OUTPUT_TYPES = new Set([
  'response.output_text.delta',
  'response.output_audio_transcript.delta',
  'response.text.delta',
  'response.audio_transcript.delta',
]);

/** The top-level object of a frame, or null when it is not one. */
function parse(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function clientEvent(text: string): RealtimeClientEvent {
  if (!text.includes('"session.update"') && !text.includes('"response.create"')) return OTHER_CLIENT;
  const event = parse(text);
  if (event === null) return OTHER_CLIENT;
  const eventId = str(event.event_id);
  if (event.type === 'response.create') return { kind: 'response', eventId };
  if (event.type === 'session.update' && isObject(event.session) && event.session.model !== undefined)
    return { kind: 'model', model: event.session.model, eventId };
  return OTHER_CLIENT;
}

const OTHER_CLIENT: RealtimeClientEvent = { kind: 'other' };
const OTHER_SERVER: RealtimeServerEvent = { kind: 'other' };

function serverEvent(text: string): RealtimeServerEvent {
  // The common deltas first: cheap prefix-free checks before any parse.
  if (text.includes('"response.done"')) {
    const event = parse(text);
    if (event?.type !== 'response.done' || !isObject(event.response)) return OTHER_SERVER;
    const response = event.response;
    return {
      kind: 'response_done',
      responseId: str(response.id),
      status: str(response.status),
      usage: usageFromRealtime(response.usage),
    };
  }
  if (text.includes('"response.created"')) {
    const event = parse(text);
    if (event?.type !== 'response.created') return OTHER_SERVER;
    return { kind: 'response_started', responseId: isObject(event.response) ? str(event.response.id) : null };
  }
  if (text.includes('.delta"') && (text.includes('text.delta"') || text.includes('transcript.delta"'))) {
    const event = parse(text);
    if (event === null || !OUTPUT_TYPES.has(event.type as string)) return OTHER_SERVER;
    return { kind: 'output', text: str(event.delta) ?? '' };
  }
  return OTHER_SERVER;
}

/** OpenAI's server event ids: `event_` and 21 characters. */
function eventId(): string {
  return `event_${randomBytes(16).toString('base64url').slice(0, 21)}`;
}

export const realtimeProtocol: RealtimeProtocol = {
  route: '/v1/realtime',
  errors: 'openai',
  keySources: ['authorization'],
  keyOfSubprotocols(header) {
    if (header === undefined) return null;
    for (const offered of header.split(',')) {
      const protocol = offered.trim();
      if (protocol.startsWith(REALTIME_KEY_SUBPROTOCOL))
        return protocol.slice(REALTIME_KEY_SUBPROTOCOL.length);
    }
    return null;
  },
  modelOf: (query) => query.model,
  clientEvent,
  serverEvent,
  withModel(text, model) {
    const event = parse(text);
    if (event === null || !isObject(event.session)) return text;
    return JSON.stringify({ ...event, session: { ...event.session, model } });
  },
  cancelEvent: (responseId) =>
    JSON.stringify(
      responseId === null
        ? { type: 'response.cancel' }
        : { type: 'response.cancel', response_id: responseId },
    ),
  errorEvent(error: RealtimeError, clientEventId) {
    return JSON.stringify({
      type: 'error',
      event_id: eventId(),
      error: {
        type: error.type,
        code: error.code,
        message: error.message,
        param: error.param ?? null,
        event_id: clientEventId,
      },
    });
  },
};
