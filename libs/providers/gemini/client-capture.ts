import { type InputMessage, type MessagePart } from '#libs/telemetry';
import { type InputContent } from '../src/adapter.js';
import {
  blob,
  list,
  obj,
  type Obj,
  other,
  reasoning,
  str,
  text,
  toolCall,
  toolResponse,
} from '../src/content-parts.js';
import { read } from './client-fields.js';
import { DATA_FIELDS } from './client-validate.js';

/**
 * A Gemini body in the GenAI conventions' shapes, for content capture: the system instruction
 * apart, each content a message (`model` is the assistant). Capture reads what the client sent,
 * whatever it is: nothing here throws, and what it does not know becomes a part of its own type.
 */
export function geminiInputContent(body: Obj): InputContent {
  const system = read(body, 'systemInstruction');
  return {
    system: system === undefined || system === null ? null : geminiParts(obj(system)),
    messages: list(read(body, 'contents')).map(geminiMessage),
  };
}

export function geminiMessage(raw: unknown): InputMessage {
  const content = obj(raw);
  return { role: content.role === 'model' ? 'assistant' : 'user', parts: geminiParts(content) };
}

/** The parts of one Gemini content (an answer's candidate reads the same way). */
export function geminiParts(content: Obj): MessagePart[] {
  return list(content.parts).map((raw) => part(obj(raw)));
}

function part(p: Obj): MessagePart {
  if (typeof p.text === 'string') return p.thought === true ? reasoning(p.text) : text(p.text);
  const call = read(p, 'functionCall');
  if (call !== undefined) return toolCall(obj(call).id, obj(call).name, obj(call).args ?? {});
  const response = read(p, 'functionResponse');
  if (response !== undefined) return toolResponse(obj(response).id, obj(response).response ?? null);
  const inline = read(p, 'inlineData');
  if (inline !== undefined) return blob(read(obj(inline), 'mimeType'), obj(inline).data, 'document');
  const file = read(p, 'fileData');
  if (file !== undefined) return uri(obj(file));
  return other(DATA_FIELDS.find((field) => read(p, field) !== undefined) ?? 'unknown');
}

function uri(file: Obj): MessagePart {
  const mime = str(read(file, 'mimeType'));
  const kind = mime?.split('/', 1)[0];
  const modality = kind === 'image' || kind === 'audio' || kind === 'video' ? kind : 'document';
  return { type: 'uri', modality, mime_type: mime, uri: str(read(file, 'fileUri')) ?? '' };
}
