/**
 * What OpenAI's Realtime API refuses of a client event, in its words: the refusal is an `error`
 * event (the session stays open), `{ type, code, message, param }`. Covers the events the mock
 * serves; fields it does not know are refused as OpenAI refuses them (`unknown_parameter`).
 */

export interface RealtimeRefusal {
  readonly type: 'invalid_request_error';
  readonly code: string;
  readonly message: string;
  readonly param: string | null;
}

/** Every client event type of the GA API (the beta's `transcription_session.update` is not served). */
export const REALTIME_CLIENT_EVENTS = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
  'output_audio_buffer.clear',
] as const;

/** The session fields a `realtime` session takes. */
const SESSION_FIELDS = new Set([
  'type',
  'model',
  'instructions',
  'output_modalities',
  'audio',
  'include',
  'max_output_tokens',
  'prompt',
  'tool_choice',
  'tools',
  'tracing',
  'truncation',
]);

/** The fields of `response.create`'s `response`. */
const RESPONSE_FIELDS = new Set([
  'conversation',
  'input',
  'instructions',
  'max_output_tokens',
  'metadata',
  'output_modalities',
  'prompt',
  'tool_choice',
  'tools',
  'audio',
]);

const USER_PARTS = new Set(['input_text', 'input_audio', 'input_image']);
const ASSISTANT_PARTS = new Set(['output_text', 'output_audio']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const refusal = (code: string, message: string, param: string | null): RealtimeRefusal => ({
  type: 'invalid_request_error',
  code,
  message,
  param,
});

const missing = (param: string): RealtimeRefusal =>
  refusal('missing_required_parameter', `Missing required parameter: '${param}'.`, param);
const unknown = (param: string): RealtimeRefusal =>
  refusal('unknown_parameter', `Unknown parameter: '${param}'.`, param);
const invalidValue = (param: string, value: unknown, supported: readonly string[]): RealtimeRefusal =>
  refusal(
    'invalid_value',
    `Invalid value: '${String(value)}'. Supported values are: ${supported.map((s) => `'${s}'`).join(', ')}.`,
    param,
  );

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

const invalidType = (param: string, expected: string, v: unknown): RealtimeRefusal =>
  refusal(
    'invalid_type',
    `Invalid type for '${param}': expected ${expected}, but got ${jsonType(v)} instead.`,
    param,
  );

/** The frame's text as an event object, or OpenAI's refusal of it. */
export function parseRealtimeEvent(text: string): Json | RealtimeRefusal {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refusal(
      'invalid_json',
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      null,
    );
  }
  if (!isObject(value)) return invalidType('', 'an object', value);
  if (value.type === undefined) return missing('type');
  if (typeof value.type !== 'string') return invalidType('type', 'a string', value.type);
  if (!(REALTIME_CLIENT_EVENTS as readonly string[]).includes(value.type))
    return invalidValue('type', value.type, REALTIME_CLIENT_EVENTS);
  if (value.event_id !== undefined && typeof value.event_id !== 'string')
    return invalidType('event_id', 'a string', value.event_id);
  return value;
}

export const isRefusal = (v: Json | RealtimeRefusal | null): v is RealtimeRefusal =>
  v !== null && typeof v.code === 'string' && v.type === 'invalid_request_error' && 'param' in v;

/** A `session.update`'s `session`: null when OpenAI takes it. `models`: the realtime models served. */
export function validateRealtimeSession(
  session: unknown,
  models: (m: string) => boolean,
): RealtimeRefusal | null {
  if (session === undefined) return missing('session');
  if (!isObject(session)) return invalidType('session', 'an object', session);
  if (session.type === undefined) return missing('session.type');
  if (session.type !== 'realtime')
    return invalidValue('session.type', session.type, ['realtime', 'transcription']);
  for (const field of Object.keys(session))
    if (!SESSION_FIELDS.has(field)) return unknown(`session.${field}`);
  if (session.model !== undefined) {
    if (typeof session.model !== 'string') return invalidType('session.model', 'a string', session.model);
    if (!models(session.model))
      return refusal(
        'model_not_found',
        `The model \`${session.model}\` does not exist or you do not have access to it.`,
        'session.model',
      );
  }
  if (session.instructions !== undefined && typeof session.instructions !== 'string')
    return invalidType('session.instructions', 'a string', session.instructions);
  return modalities('session.output_modalities', session.output_modalities);
}

function modalities(param: string, value: unknown): RealtimeRefusal | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return invalidType(param, 'an array', value);
  if (value.length !== 1 || (value[0] !== 'text' && value[0] !== 'audio'))
    return refusal(
      'invalid_value',
      `Invalid modalities: '${JSON.stringify(value)}'. Supported combinations are: ['text'] and ['audio'].`,
      param,
    );
  return null;
}

/** A `conversation.item.create`'s `item`. */
export function validateRealtimeItem(item: unknown): RealtimeRefusal | null {
  if (item === undefined) return missing('item');
  if (!isObject(item)) return invalidType('item', 'an object', item);
  if (item.type === undefined) return missing('item.type');
  if (item.type === 'function_call_output') {
    if (typeof item.call_id !== 'string') return missing('item.call_id');
    return typeof item.output === 'string' ? null : missing('item.output');
  }
  if (item.type === 'function_call') {
    if (typeof item.name !== 'string') return missing('item.name');
    return typeof item.arguments === 'string' ? null : missing('item.arguments');
  }
  if (item.type !== 'message')
    return invalidValue('item.type', item.type, ['message', 'function_call', 'function_call_output']);
  if (item.role === undefined) return missing('item.role');
  if (item.role !== 'user' && item.role !== 'assistant' && item.role !== 'system')
    return invalidValue('item.role', item.role, ['user', 'assistant', 'system']);
  if (item.content === undefined) return missing('item.content');
  if (!Array.isArray(item.content)) return invalidType('item.content', 'an array', item.content);
  const allowed =
    item.role === 'assistant'
      ? ASSISTANT_PARTS
      : item.role === 'system'
        ? new Set(['input_text'])
        : USER_PARTS;
  for (const [i, part] of item.content.entries()) {
    const param = `item.content[${i}]`;
    if (!isObject(part)) return invalidType(param, 'an object', part);
    if (!allowed.has(part.type as string)) return invalidValue(`${param}.type`, part.type, [...allowed]);
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string')
      return missing(`${param}.text`);
    if (part.type === 'input_audio' && typeof part.audio !== 'string') return missing(`${param}.audio`);
  }
  return null;
}

/** A `response.create`'s optional `response`. */
export function validateRealtimeResponse(response: unknown): RealtimeRefusal | null {
  if (response === undefined) return null;
  if (!isObject(response)) return invalidType('response', 'an object', response);
  for (const field of Object.keys(response))
    if (!RESPONSE_FIELDS.has(field)) return unknown(`response.${field}`);
  if (
    response.conversation !== undefined &&
    response.conversation !== 'auto' &&
    response.conversation !== 'none'
  )
    return invalidValue('response.conversation', response.conversation, ['auto', 'none']);
  return modalities('response.output_modalities', response.output_modalities);
}
