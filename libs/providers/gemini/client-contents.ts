import { type Adjustments } from '../src/adjustments.js';
import { type ChatContentPart, type ChatMessage, type ChatToolCall } from '../src/chat.js';
import { invalid, isObject, type Json, read, unsupported } from './client-fields.js';
import { DATA_FIELDS } from './client-validate.js';

/**
 * Gemini `contents` (already checked by client-validate.ts) -> hub messages. Model turns become
 * assistant messages (text joined, function calls as tool_calls), user turns tool messages (their
 * function responses, first) then a user message. Thinking travels in `thought` parts and
 * `thoughtSignature`s that only Google can read: another vendor made or will make the answer,
 * so they are dropped, counted, and recorded once.
 */

interface PendingCall {
  readonly id: string;
  readonly name: string;
}

interface Walk {
  /** Calls not yet answered, oldest first: Google pairs responses to them by name and order. */
  readonly pending: PendingCall[];
  /** A countTokens body may hold a response alone (Gemini CLI counts a tool result before sending it). */
  readonly counting: boolean;
  thoughts: number;
  signatures: number;
  readonly hints: Set<string>;
}

/** Part fields that tune how Google reads media or carry client bookkeeping; the model's input is the same. */
const PART_HINTS = ['mediaResolution', 'videoMetadata', 'partMetadata'] as const;

export function hubMessagesOf(
  contents: readonly Json[],
  adjust: Adjustments,
  counting = false,
): ChatMessage[] {
  const walk: Walk = { pending: [], counting, thoughts: 0, signatures: 0, hints: new Set() };
  const messages = contents.flatMap((content, i) => {
    const parts = (content.parts as Json[]).map((part) => noted(part, walk));
    return content.role === 'model' ? modelTurn(parts, i, walk) : userTurn(parts, i, walk);
  });
  if (walk.thoughts > 0) adjust.drop('contents[].parts[].thought', undefined, `(${walk.thoughts} parts)`);
  if (walk.signatures > 0)
    adjust.drop('contents[].parts[].thoughtSignature', undefined, `(${walk.signatures} parts)`);
  for (const hint of walk.hints) adjust.drop(`contents[].parts[].${hint}`);
  return messages;
}

/** The system instruction: its text parts, one system message. */
export function systemMessagesOf(system: Json | undefined): ChatMessage[] {
  if (system === undefined) return [];
  const texts = (system.parts as Json[]).map((part, j) => {
    const at = `systemInstruction.parts[${j}]`;
    if (typeof part.text !== 'string') throw unsupported(`${at}.${dataField(part)}`);
    return part.text;
  });
  const content = texts.length === 1 ? texts[0]! : texts.map((text) => ({ type: 'text' as const, text }));
  return [{ role: 'system', content }];
}

/** Counts what the walk drops from a part; returns the part. */
function noted(part: Json, walk: Walk): Json {
  if (read(part, 'thoughtSignature') !== undefined) walk.signatures += 1;
  for (const hint of PART_HINTS) if (read(part, hint) !== undefined) walk.hints.add(hint);
  if (isThought(part)) walk.thoughts += 1;
  return part;
}

const isThought = (part: Json): boolean => part.thought === true && typeof part.text === 'string';

function dataField(part: Json): string {
  return DATA_FIELDS.find((field) => read(part, field) !== undefined) ?? 'data';
}

function modelTurn(parts: readonly Json[], i: number, walk: Walk): ChatMessage[] {
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  parts.forEach((part, j) => {
    const at = `contents[${i}].parts[${j}]`;
    if (isThought(part)) return;
    if (typeof part.text === 'string') texts.push(part.text);
    else if (isObject(read(part, 'functionCall')))
      calls.push(toolCall(read(part, 'functionCall') as Json, i, j, walk));
    else if (isObject(read(part, 'functionResponse')))
      throw invalid(
        `${at}.functionResponse`,
        `${at}.functionResponse: a function response belongs in a user turn.`,
      );
    // An assistant message holds text and calls only: media the model made, or code it ran at Google, cannot go back.
    else throw unsupported(`${at}.${dataField(part)}`);
  });
  if (texts.length === 0 && calls.length === 0) return [];
  const message: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  return [calls.length > 0 ? { ...message, tool_calls: calls } : message];
}

/**
 * Without an id, a call gets one from its place (`call_<turn>_<part>`), and the response Google
 * would pair with it (the oldest unanswered call of that name) gets the same.
 */
function toolCall(call: Json, i: number, j: number, walk: Walk): ChatToolCall {
  const given = read(call, 'id');
  const id = typeof given === 'string' && given !== '' ? given : `call_${i}_${j}`;
  const name = call.name as string;
  walk.pending.push({ id, name });
  const args = read(call, 'args');
  return { id, type: 'function', function: { name, arguments: JSON.stringify(isObject(args) ? args : {}) } };
}

function userTurn(parts: readonly Json[], i: number, walk: Walk): ChatMessage[] {
  const results: ChatMessage[] = [];
  const content: ChatContentPart[] = [];
  parts.forEach((part, j) => {
    const at = `contents[${i}].parts[${j}]`;
    if (isThought(part)) return;
    const response = read(part, 'functionResponse');
    if (isObject(response)) results.push(toolMessage(response, at, walk));
    else if (typeof part.text === 'string') content.push({ type: 'text', text: part.text });
    else if (isObject(read(part, 'inlineData')))
      content.push(inlineImage(read(part, 'inlineData') as Json, at));
    else if (isObject(read(part, 'fileData'))) content.push(fileImage(read(part, 'fileData') as Json, at));
    else if (isObject(read(part, 'functionCall')))
      throw invalid(`${at}.functionCall`, `${at}.functionCall: a function call belongs in a model turn.`);
    else throw unsupported(`${at}.${dataField(part)}`);
  });
  if (content.length === 0) return results;
  const only = content.length === 1 ? content[0]! : null;
  return [...results, { role: 'user', content: only?.type === 'text' ? only.text : content }];
}

/** A tool message holds text: the response object as JSON; media parts in a response cannot follow. */
function toolMessage(response: Json, part: string, walk: Walk): ChatMessage {
  const at = `${part}.functionResponse`;
  const media = read(response, 'parts');
  if (Array.isArray(media) && media.length > 0) throw unsupported(`${at}.parts`);
  return {
    role: 'tool',
    tool_call_id: answeredCall(response, part, walk),
    content: JSON.stringify(read(response, 'response')),
  };
}

/**
 * The id of the call a response answers: the call with its id, else the oldest unanswered call of
 * its name. A client that made up its own id for a call Google sent without one is paired by name
 * too, and gets the call's id, which is the one the provider saw. A response to no call is
 * refused as Google refuses it, except when only counting.
 */
function answeredCall(response: Json, part: string, walk: Walk): string {
  const id = read(response, 'id');
  const given = typeof id === 'string' && id !== '' ? id : null;
  let k = given !== null ? walk.pending.findIndex((c) => c.id === given) : -1;
  if (k < 0) k = walk.pending.findIndex((c) => c.name === response.name);
  if (k >= 0) return walk.pending.splice(k, 1)[0]!.id;
  if (walk.counting) return given ?? `call_${part.replace(/\D+/g, '_').replace(/^_|_$/g, '')}`;
  throw invalid(
    `${part}.functionResponse`,
    'Please ensure that function response turn comes immediately after a function call turn.',
  );
}

function inlineImage(blob: Json, at: string): ChatContentPart {
  const mime = read(blob, 'mimeType') as string;
  if (!mime.toLowerCase().startsWith('image/')) throw unsupported(`${at}.inlineData.mimeType (${mime})`);
  return { type: 'image_url', image_url: { url: `data:${mime};base64,${String(read(blob, 'data'))}` } };
}

/** Only an image another server can fetch: https, and not a Gemini Files API file (Google's auth). */
function fileImage(file: Json, at: string): ChatContentPart {
  const uri = read(file, 'fileUri') as string;
  const mime = read(file, 'mimeType');
  if (typeof mime !== 'string' || !mime.toLowerCase().startsWith('image/'))
    throw unsupported(`${at}.fileData.mimeType (${String(mime ?? 'none')})`);
  if (!/^https:\/\//i.test(uri)) throw unsupported(`${at}.fileData.fileUri (${uri.split(':')[0]!} URI)`);
  if (/^https:\/\/generativelanguage\.googleapis\.com\//i.test(uri))
    throw unsupported(`${at}.fileData.fileUri (a Gemini Files API file)`);
  return { type: 'image_url', image_url: { url: uri } };
}
