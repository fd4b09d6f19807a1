import { type InputMessage, type MessagePart, type OutputMessage } from '#libs/telemetry';
import {
  blob,
  file,
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

/** Anthropic Messages in the conventions' shapes: the same content blocks ask and answer. */

/** `system`: a text or text blocks, given apart from the messages (gen_ai.system_instructions). */
export function systemInstructions(system: unknown): MessagePart[] | null {
  if (typeof system === 'string') return [text(system)];
  return Array.isArray(system) ? system.map(block) : null;
}

export function anthropicMessage(raw: unknown): InputMessage {
  const m = obj(raw);
  return { role: str(m.role) ?? 'user', parts: blocks(m.content) };
}

/** A Messages answer: one message, its stop reason. */
export function anthropicOutput(message: Obj): OutputMessage {
  return {
    role: 'assistant',
    parts: blocks(message.content),
    finish_reason: str(message.stop_reason) ?? 'error',
  };
}

function blocks(content: unknown): MessagePart[] {
  return typeof content === 'string' ? [text(content)] : list(content).map(block);
}

function block(raw: unknown): MessagePart {
  const b = obj(raw);
  switch (b.type) {
    case 'text':
      return text(str(b.text) ?? '');
    case 'thinking':
      return reasoning(str(b.thinking) ?? '');
    case 'tool_use':
      return toolCall(b.id, b.name, b.input);
    case 'tool_result':
      return toolResponse(b.tool_use_id, typeof b.content === 'string' ? b.content : blocks(b.content));
    case 'image':
      return source(obj(b.source), 'image');
    case 'document':
      return source(obj(b.source), 'document');
    default:
      return other(b.type);
  }
}

/** An image or document source: inline base64, a URL, an uploaded file, or plain text. */
function source(s: Obj, modality: string): MessagePart {
  switch (s.type) {
    case 'base64':
      return blob(s.media_type, s.data, modality);
    case 'url':
      return { type: 'uri', modality, mime_type: null, uri: str(s.url) ?? '' };
    case 'file':
      return file(s.file_id, modality);
    case 'text':
      return text(str(s.data) ?? '');
    default:
      return other(s.type);
  }
}
