import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { type MockState } from './control.js';
import { mockId, unixSeconds } from './ids.js';
import { replyText, splitEvenly, tokensOf } from './text.js';
import {
  isRefusal,
  parseRealtimeEvent,
  type RealtimeRefusal,
  validateRealtimeItem,
  validateRealtimeResponse,
  validateRealtimeSession,
} from './validate-openai-realtime.js';

/**
 * OpenAI's Realtime API over a WebSocket, GA protocol: `GET /v1/realtime?model=...` upgraded,
 * the key as `Authorization: Bearer` (or a browser's `openai-insecure-api-key.<key>`
 * subprotocol). A wrong key is accepted at the handshake and answered, as OpenAI does, with an
 * `invalid_api_key` error event and a close (code 3000). The session answers text turns:
 * `response.create` streams `response.created`, the output item and content part,
 * `response.output_text.delta`s (or `response.output_audio.delta`s and their transcript for an
 * audio session) and `response.done` with usage (text and audio tokens, the cached prefix of the
 * conversation). Client events are validated as OpenAI validates them (`validate-openai-realtime.ts`);
 * a refusal is an `error` event and the session goes on. Each client event is recorded in the
 * request log (method `WS`).
 */

/** The realtime models the mock serves (OpenAI's names too, for clients that name them). */
export const isRealtimeModel = (m: string): boolean =>
  m === 'mock-realtime' || /^(gpt-realtime|gpt-4o(-mini)?-realtime)/.test(m);

/** Audio input: one token per 100 ms of 24 kHz 16-bit mono PCM (4,800 bytes), as OpenAI counts it. */
const AUDIO_BYTES_PER_TOKEN = 4800;
/** Audio output tokens per delta of an audio answer. */
const AUDIO_TOKENS_PER_DELTA = 10;

interface Item {
  readonly id: string;
  readonly json: Record<string, unknown>;
  readonly textTokens: number;
  readonly audioTokens: number;
  readonly prompt: string;
}

interface Session {
  readonly ws: WebSocket;
  readonly id: string;
  model: string;
  instructions: string;
  modalities: string[];
  readonly items: Item[];
  audioBuffer: number;
  active: { id: string; cancel: () => void } | null;
  /** Items the previous response read: its input is the cached prefix of the next one. */
  cachedItems: number;
}

type Json = Record<string, unknown>;

/** Serves realtime upgrades on the mock's HTTP server; returns what closes every open session. */
export function attachRealtime(server: Server, state: MockState): () => void {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const model = url.searchParams.get('model');
    state.log.record({
      method: 'GET',
      path: url.pathname,
      query: url.search.slice(1),
      headers: req.headers,
      body: undefined,
      receivedAt: Date.now(),
    });
    if (url.pathname !== '/v1/realtime')
      return refuseUpgrade(
        req,
        socket,
        404,
        `Invalid URL (GET ${url.pathname})`,
        'invalid_request_error',
        null,
      );
    if (model === null || !isRealtimeModel(model))
      return refuseUpgrade(
        req,
        socket,
        model === null ? 400 : 404,
        model === null
          ? "Missing required parameter: 'model'."
          : `The model \`${model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        model === null ? 'missing_required_parameter' : 'model_not_found',
      );
    wss.handleUpgrade(req, socket, head, (ws) => {
      const denied = keyRefusal(req, state.behaviour.requireApiKey);
      if (denied !== null) {
        ws.send(errorEvent(denied, null));
        ws.close(3000, `invalid_request_error.${denied.code}`);
        return;
      }
      serve(ws, state, model, url.pathname);
    });
  });
  return () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  };
}

/** An upgrade refused before it is one: OpenAI's JSON error answer, through `ws`'s own refusal. */
function refuseUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  status: number,
  message: string,
  type: string,
  code: string | null,
): void {
  const refuser = new WebSocketServer({
    noServer: true,
    verifyClient: (_info, done) =>
      done(false, status, JSON.stringify({ error: { message, type, param: null, code } }), {
        'Content-Type': 'application/json',
      }),
  });
  // ws answers the refusal (status line, headers, body) itself and destroys the socket.
  refuser.handleUpgrade(req, socket, Buffer.alloc(0), () => undefined);
}

function keyRefusal(req: IncomingMessage, key: string | null): RealtimeRefusal | null {
  if (key === null) return null;
  const auth = req.headers.authorization;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const fromProtocol = offered.find((p) => p.startsWith('openai-insecure-api-key.'))?.slice(24);
  const given = auth?.startsWith('Bearer ') ? auth.slice(7) : fromProtocol;
  if (given === key) return null;
  if (given === undefined)
    return {
      type: 'invalid_request_error',
      code: 'missing_api_key',
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      param: null,
    };
  return {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: `Incorrect API key provided: ${mask(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    param: null,
  };
}

function mask(key: string): string {
  return key.length <= 8
    ? '*'.repeat(key.length)
    : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}

function errorEvent(
  error: RealtimeRefusal | { type: string; code: string | null; message: string; param: string | null },
  clientEventId: string | null,
): string {
  return JSON.stringify({
    type: 'error',
    event_id: mockId('event_'),
    error: { ...error, event_id: clientEventId },
  });
}

function sessionObject(s: Session): Json {
  return {
    type: 'realtime',
    object: 'realtime.session',
    id: s.id,
    model: s.model,
    output_modalities: s.modalities,
    instructions: s.instructions,
    tools: [],
    tool_choice: 'auto',
    max_output_tokens: 'inf',
    tracing: null,
    truncation: 'auto',
    prompt: null,
    expires_at: unixSeconds() + 3600,
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        transcription: null,
        noise_reduction: null,
        turn_detection: null,
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 },
    },
    include: null,
  };
}

function serve(ws: WebSocket, state: MockState, model: string, path: string): void {
  const s: Session = {
    ws,
    id: mockId('sess_'),
    model,
    instructions: '',
    modalities: ['text'],
    items: [],
    audioBuffer: 0,
    active: null,
    cachedItems: 0,
  };
  const send = (event: Json): void => {
    if (ws.readyState === WebSocket.OPEN)
      ws.send(JSON.stringify({ type: event.type, event_id: mockId('event_'), ...event }));
  };
  send({ type: 'session.created', session: sessionObject(s) });
  ws.on('close', () => s.active?.cancel());
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    const parsed = parseRealtimeEvent(text);
    state.log.record({
      method: 'WS',
      path,
      query: '',
      headers: {},
      body: isRefusal(parsed) ? text : parsed,
      receivedAt: Date.now(),
    });
    if (isRefusal(parsed)) return ws.send(errorEvent(parsed, null));
    const eventId = typeof parsed.event_id === 'string' ? parsed.event_id : null;
    const refused = handle(s, parsed, send, state);
    if (refused !== null) ws.send(errorEvent(refused, eventId));
  });
}

function handle(s: Session, event: Json, send: (e: Json) => void, state: MockState): RealtimeRefusal | null {
  switch (event.type) {
    case 'session.update': {
      const refused = validateRealtimeSession(event.session, isRealtimeModel);
      if (refused) return refused;
      const session = event.session as Json;
      if (typeof session.model === 'string') s.model = session.model;
      if (typeof session.instructions === 'string') s.instructions = session.instructions;
      if (Array.isArray(session.output_modalities)) s.modalities = session.output_modalities as string[];
      send({ type: 'session.updated', session: sessionObject(s) });
      return null;
    }
    case 'conversation.item.create': {
      const refused = validateRealtimeItem(event.item);
      if (refused) return refused;
      addItem(s, event.item as Json, send);
      return null;
    }
    case 'input_audio_buffer.append':
      if (typeof event.audio !== 'string')
        return {
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          message: "Missing required parameter: 'audio'.",
          param: 'audio',
        };
      s.audioBuffer += Buffer.from(event.audio, 'base64').length;
      return null;
    case 'input_audio_buffer.clear':
      s.audioBuffer = 0;
      send({ type: 'input_audio_buffer.cleared' });
      return null;
    case 'input_audio_buffer.commit': {
      if (s.audioBuffer < AUDIO_BYTES_PER_TOKEN)
        return {
          type: 'invalid_request_error',
          code: 'input_audio_buffer_commit_empty',
          message: `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${Math.round((s.audioBuffer / 48000) * 1000 * 100) / 100}ms of audio.`,
          param: null,
        };
      const item = { type: 'message', role: 'user', content: [{ type: 'input_audio', audio: '' }] };
      const id = addItem(s, item, send, s.audioBuffer);
      s.audioBuffer = 0;
      send({
        type: 'input_audio_buffer.committed',
        previous_item_id: s.items.at(-2)?.id ?? null,
        item_id: id,
      });
      return null;
    }
    case 'conversation.item.delete':
    case 'conversation.item.retrieve':
    case 'conversation.item.truncate': {
      const index = s.items.findIndex((i) => i.id === event.item_id);
      if (index < 0)
        return {
          type: 'invalid_request_error',
          code: 'item_not_found',
          message: `Item with item_id not found: ${String(event.item_id)}`,
          param: null,
        };
      if (event.type === 'conversation.item.delete') {
        s.items.splice(index, 1);
        s.cachedItems = Math.min(s.cachedItems, index);
        send({ type: 'conversation.item.deleted', item_id: event.item_id });
      } else if (event.type === 'conversation.item.retrieve')
        send({ type: 'conversation.item.retrieved', item: s.items[index]!.json });
      else
        send({
          type: 'conversation.item.truncated',
          item_id: event.item_id,
          content_index: event.content_index ?? 0,
          audio_end_ms: event.audio_end_ms ?? 0,
        });
      return null;
    }
    case 'response.create': {
      const refused = validateRealtimeResponse(event.response);
      if (refused) return refused;
      if (s.active !== null)
        return {
          type: 'invalid_request_error',
          code: 'conversation_already_has_active_response',
          message: `Conversation already has an active response in progress: ${s.active.id}. Wait until the response is finished before creating a new one.`,
          param: null,
        };
      respond(s, (event.response ?? {}) as Json, send, state);
      return null;
    }
    case 'response.cancel':
      if (s.active === null)
        return {
          type: 'invalid_request_error',
          code: 'response_cancel_not_active',
          message: 'Cancellation failed: no active response found',
          param: null,
        };
      s.active.cancel();
      return null;
    default:
      // output_audio_buffer.clear: WebRTC only.
      return {
        type: 'invalid_request_error',
        code: 'invalid_value',
        message: 'output_audio_buffer.clear is only supported for WebRTC connections.',
        param: 'type',
      };
  }
}

function addItem(s: Session, item: Json, send: (e: Json) => void, audioBytes = 0): string {
  const id = typeof item.id === 'string' ? item.id : mockId('item_');
  const parts = Array.isArray(item.content) ? (item.content as Json[]) : [];
  let prompt = '';
  let audio = Math.ceil(audioBytes / AUDIO_BYTES_PER_TOKEN);
  for (const part of parts) {
    if (typeof part.text === 'string') prompt += `${part.text} `;
    if (typeof part.audio === 'string')
      audio += Math.ceil(Buffer.from(part.audio, 'base64').length / AUDIO_BYTES_PER_TOKEN);
  }
  if (typeof item.output === 'string') prompt += item.output;
  if (typeof item.arguments === 'string') prompt += item.arguments;
  const json = { id, object: 'realtime.item', status: 'completed', ...item };
  s.items.push({ id, json, textTokens: tokensOf(prompt) + 4, audioTokens: audio, prompt: prompt.trim() });
  send({ type: 'conversation.item.added', previous_item_id: s.items.at(-2)?.id ?? null, item: json });
  send({ type: 'conversation.item.done', previous_item_id: s.items.at(-2)?.id ?? null, item: json });
  return id;
}

function respond(s: Session, options: Json, send: (e: Json) => void, state: MockState): void {
  const b = state.behaviour;
  const id = mockId('resp_');
  const itemId = mockId('item_');
  const modalities = Array.isArray(options.output_modalities)
    ? (options.output_modalities as string[])
    : s.modalities;
  const audio = modalities[0] === 'audio';
  const read = options.conversation === 'none' ? [] : [...s.items];
  const instructions = typeof options.instructions === 'string' ? options.instructions : s.instructions;
  const lastUser = [...read].reverse().find((i) => i.json.role === 'user');
  const reply = replyText(lastUser?.prompt ?? '', b.reply, b.chunkCount);
  const deltas = splitEvenly(reply, Math.max(1, b.chunkCount));
  const inputText = read.reduce((n, i) => n + i.textTokens, tokensOf(instructions));
  const inputAudio = read.reduce((n, i) => n + i.audioTokens, 0);
  const cachedPrefix = options.conversation === 'none' ? [] : read.slice(0, s.cachedItems);
  const cachedText = cachedPrefix.reduce((n, i) => n + i.textTokens, 0);
  const cachedAudio = cachedPrefix.reduce((n, i) => n + i.audioTokens, 0);
  const base = {
    object: 'realtime.response',
    id,
    conversation_id: options.conversation === 'none' ? null : `conv_${s.id.slice(5)}`,
    output_modalities: modalities,
    max_output_tokens: options.max_output_tokens ?? 'inf',
    audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' } },
    metadata: options.metadata ?? null,
  };
  send({
    type: 'response.created',
    response: { ...base, status: 'in_progress', status_details: null, output: [], usage: null },
  });
  const item = {
    id: itemId,
    type: 'message',
    object: 'realtime.item',
    status: 'in_progress',
    role: 'assistant',
    content: [] as Json[],
  };
  send({ type: 'response.output_item.added', response_id: id, output_index: 0, item });
  send({ type: 'conversation.item.added', previous_item_id: s.items.at(-1)?.id ?? null, item });
  send({
    type: 'response.content_part.added',
    response_id: id,
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    part: audio ? { type: 'output_audio', transcript: '' } : { type: 'output_text', text: '' },
  });
  let sent = 0;
  let timer: NodeJS.Timeout | null = null;
  const at = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
  const finish = (status: 'completed' | 'cancelled'): void => {
    if (timer !== null) clearTimeout(timer);
    s.active = null;
    const text = deltas.slice(0, sent).join('');
    const part = audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text };
    if (audio) {
      send({ type: 'response.output_audio.done', ...at });
      send({ type: 'response.output_audio_transcript.done', ...at, transcript: text });
    } else send({ type: 'response.output_text.done', ...at, text });
    send({ type: 'response.content_part.done', ...at, part });
    const done = { ...item, status: status === 'completed' ? 'completed' : 'incomplete', content: [part] };
    send({ type: 'response.output_item.done', response_id: id, output_index: 0, item: done });
    send({ type: 'conversation.item.done', previous_item_id: s.items.at(-1)?.id ?? null, item: done });
    if (options.conversation !== 'none') {
      s.items.push({ id: itemId, json: done, textTokens: tokensOf(text) + 4, audioTokens: 0, prompt: text });
      s.cachedItems = read.length;
    }
    const outText = tokensOf(text);
    const outAudio = audio ? sent * AUDIO_TOKENS_PER_DELTA : 0;
    const usage = {
      total_tokens: inputText + inputAudio + outText + outAudio,
      input_tokens: inputText + inputAudio,
      output_tokens: outText + outAudio,
      input_token_details: {
        text_tokens: inputText,
        audio_tokens: inputAudio,
        image_tokens: 0,
        cached_tokens: cachedText + cachedAudio,
        cached_tokens_details: { text_tokens: cachedText, audio_tokens: cachedAudio, image_tokens: 0 },
      },
      output_token_details: { text_tokens: outText, audio_tokens: outAudio },
    };
    send({
      type: 'response.done',
      response: {
        ...base,
        status,
        status_details: status === 'cancelled' ? { type: 'cancelled', reason: 'client_cancelled' } : null,
        output: [done],
        ...(b.omitUsage ? {} : { usage }),
      },
    });
  };
  const next = (): void => {
    timer = null;
    if (b.resetMidStream && sent >= Math.min(2, deltas.length - 1)) {
      s.active = null;
      s.ws.terminate();
      return;
    }
    const delta = deltas[sent++]!;
    if (audio) {
      send({ type: 'response.output_audio.delta', ...at, delta: Buffer.alloc(480).toString('base64') });
      send({ type: 'response.output_audio_transcript.delta', ...at, delta });
    } else send({ type: 'response.output_text.delta', ...at, delta });
    if (sent < deltas.length) timer = setTimeout(next, b.chunkIntervalMs);
    else finish('completed');
  };
  s.active = { id, cancel: () => (s.active?.id === id ? finish('cancelled') : undefined) };
  timer = setTimeout(next, b.ttftMs);
}
