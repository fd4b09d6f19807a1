import { type MessagePart } from '#libs/telemetry';

/**
 * Building blocks shared by the wire formats' content readers (content capture in the GenAI
 * semantic conventions' shapes). Bodies come from clients and vendors: every reader takes `unknown` and yields nothing (never throws) for what it does not
 * recognise, since capture must never fail a request.
 */
export type Obj = Readonly<Record<string, unknown>>;

export const obj = (v: unknown): Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
export const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export const text = (content: string): MessagePart => ({ type: 'text', content });
export const reasoning = (content: string): MessagePart => ({ type: 'reasoning', content });

/** A tool call; arguments are JSON text on the OpenAI wire, an object on Anthropic's. */
export function toolCall(id: unknown, name: unknown, args: unknown): MessagePart {
  return { type: 'tool_call', id: str(id), name: str(name) ?? '', arguments: parsedArguments(args) };
}

export const toolResponse = (id: unknown, response: unknown): MessagePart => ({
  type: 'tool_call_response',
  id: str(id),
  response,
});

/** A part the conventions have no shape for: its type only (the schemas' GenericPart). */
export const other = (type: unknown): MessagePart => ({ type: str(type) ?? 'unknown' });

/** Arguments as an object when they are complete JSON; a cut stream's partial text as it is. */
export function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? null;
  if (args === '') return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/;

/** An inline `data:` URL becomes a blob part (base64 content), any other URL a uri part. */
export function media(url: unknown, modality: string): MessagePart {
  const u = str(url) ?? '';
  const data = DATA_URL.exec(u);
  if (data === null) return { type: 'uri', modality, mime_type: null, uri: u };
  const mime = data[1] || null;
  return {
    type: 'blob',
    modality: modalityOf(mime, modality),
    mime_type: mime,
    content: u.slice(data[0].length),
  };
}

export const blob = (mime: unknown, data: unknown, fallback: string): MessagePart => ({
  type: 'blob',
  modality: modalityOf(str(mime), fallback),
  mime_type: str(mime),
  content: str(data) ?? '',
});

export const file = (fileId: unknown, modality: string): MessagePart => ({
  type: 'file',
  modality,
  file_id: str(fileId) ?? '',
});

/** `image`, `audio` or `video` from a MIME type; otherwise what the part said it was. */
function modalityOf(mime: string | null, fallback: string): string {
  const kind = mime?.split('/', 1)[0];
  return kind === 'image' || kind === 'audio' || kind === 'video' ? kind : fallback;
}

/** `text` as a JSON object, or null (not JSON, or not an object); never throws. */
export function parseObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}
