import { type InputMessage, type MessagePart, type OutputMessage } from '#libs/telemetry';
import {
  blob,
  file,
  list,
  media,
  obj,
  type Obj,
  other,
  reasoning,
  str,
  text,
  toolCall,
  toolResponse,
} from '../src/content-parts.js';

/** OpenAI's wire formats (chat, completions, embeddings, responses) in the conventions' shapes. */

/** A chat message, asked (`messages[]`) or answered (`choices[].message`). */
export function chatMessage(raw: unknown): InputMessage {
  const m = obj(raw);
  const role = str(m.role) ?? 'user';
  if (role === 'tool') return { role, parts: [toolResponse(m.tool_call_id, m.content)] };
  const parts: MessagePart[] = [];
  // DeepSeek-style thinking, which the hub also carries Anthropic's thinking in.
  if (typeof m.reasoning_content === 'string') parts.push(reasoning(m.reasoning_content));
  parts.push(...chatContent(m.content));
  if (typeof m.refusal === 'string') parts.push(text(m.refusal));
  for (const c of list(m.tool_calls)) {
    const call = obj(c);
    const fn = obj(call.function);
    parts.push(toolCall(call.id, fn.name, fn.arguments));
  }
  const name = str(m.name);
  return name === null ? { role, parts } : { role, name, parts };
}

function chatContent(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [text(content)];
  return list(content).map((raw) => {
    const p = obj(raw);
    switch (p.type) {
      case 'text':
        return text(str(p.text) ?? '');
      case 'refusal':
        return text(str(p.refusal) ?? '');
      case 'image_url':
        return media(obj(p.image_url).url, 'image');
      case 'input_audio': {
        const audio = obj(p.input_audio);
        return blob(`audio/${str(audio.format) ?? ''}`, audio.data, 'audio');
      }
      case 'file':
        return filePart(obj(p.file));
      default:
        return other(p.type);
    }
  });
}

/** Chat and completions answers: one message per choice. */
export function choiceMessages(choices: readonly unknown[]): OutputMessage[] {
  return choices.map((raw) => {
    const c = obj(raw);
    const parts =
      typeof c.text === 'string'
        ? [text(c.text)]
        : chatMessage({ ...obj(c.message), role: 'assistant' }).parts;
    return { role: 'assistant', parts, finish_reason: str(c.finish_reason) ?? 'error' };
  });
}

/** Completions `prompt` and embeddings `input`: a text, texts, or token arrays; one message each. */
export function promptMessages(prompt: unknown): InputMessage[] {
  if (typeof prompt === 'string') return [user(text(prompt))];
  const items = list(prompt);
  if (typeof items[0] === 'number') return [user({ type: 'tokens', content: items })];
  return items.map((p) => user(typeof p === 'string' ? text(p) : { type: 'tokens', content: p }));
}

const user = (part: MessagePart): InputMessage => ({ role: 'user', parts: [part] });

/** Responses `input`: a text, or items (messages, function calls and their outputs, reasoning...). */
export function responsesInput(input: unknown): InputMessage[] {
  if (typeof input === 'string') return [user(text(input))];
  return list(input).map((raw) => {
    const item = obj(raw);
    const kind = str(item.type) ?? 'message';
    if (kind === 'message') return { role: str(item.role) ?? 'user', parts: responsesContent(item.content) };
    if (kind === 'function_call_output')
      return { role: 'tool', parts: [toolResponse(item.call_id, item.output)] };
    return { role: 'assistant', parts: responsesItemParts(item) };
  });
}

/** A Responses answer: all its output items make one message (one generation). */
export function responsesOutput(response: Obj, finishReason: string | null): OutputMessage {
  return {
    role: 'assistant',
    parts: list(response.output).flatMap((item) => responsesItemParts(obj(item))),
    finish_reason: finishReason ?? 'error',
  };
}

function responsesItemParts(item: Obj): MessagePart[] {
  switch (item.type) {
    case 'message':
      return responsesContent(item.content);
    case 'function_call':
      return [toolCall(item.call_id, item.name, item.arguments)];
    case 'reasoning':
      return list(item.summary).map((s) => reasoning(str(obj(s).text) ?? ''));
    default:
      return [other(item.type)];
  }
}

function responsesContent(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [text(content)];
  return list(content).map((raw) => {
    const p = obj(raw);
    switch (p.type) {
      case 'input_text':
      case 'output_text':
        return text(str(p.text) ?? '');
      case 'refusal':
        return text(str(p.refusal) ?? '');
      case 'input_image':
        return p.image_url === undefined ? file(p.file_id, 'image') : media(p.image_url, 'image');
      case 'input_file':
        return filePart(p);
      default:
        return other(p.type);
    }
  });
}

/** Chat `file` parts and Responses `input_file`: an uploaded file, inline data, or a URL. */
function filePart(f: Obj): MessagePart {
  if (typeof f.file_data === 'string')
    return f.file_data.startsWith('data:')
      ? media(f.file_data, 'document')
      : blob(null, f.file_data, 'document');
  if (typeof f.file_url === 'string') return media(f.file_url, 'document');
  return file(f.file_id, 'document');
}
