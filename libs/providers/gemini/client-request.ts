import { type Adjustments, untracked } from '../src/adjustments.js';
import { type RequestTarget } from '../src/adapter.js';
import { type ChatRequest } from '../src/chat.js';
import { type JsonObject } from '../src/types.js';
import { hubMessagesOf, systemMessagesOf } from './client-contents.js';
import { generationOf } from './client-generation.js';
import { camelCase, invalid, isObject, type Json, read, unsupported } from './client-fields.js';
import { toolChoiceOf } from './client-tool-choice.js';
import { toolsOf } from './client-tools.js';
import { generateContentInvalid } from './client-validate.js';

/**
 * Fields that tune Google's machinery, not what the model writes: dropped and recorded even under
 * strict translation (labels are billing tags; the tier and `store` concern Google's serving).
 */
const DROPPED = new Set(['labels', 'serviceTier', 'store']);

/** Google's safety filters: another provider applies its own; dropped, refused when strict. */
const HINTS = new Set(['safetySettings']);

/** They name Google-side state (a cache, a paused generation) that no other provider has. */
const REFUSED = new Set(['cachedContent', 'continuationToken']);

/**
 * `models/{model}:generateContent` (and `:streamGenerateContent`) body -> hub request. The model
 * and the stream flag come from the path (`target`); without one (tests, probes) the body's
 * `model` is read. The body is checked as Google checks it first (client-validate.ts), then
 * every field is carried, dropped as a hint (recorded on `adjust`) or refused with a 400 naming it.
 */
export function hubRequestOfGemini(
  body: JsonObject,
  adjust: Adjustments = untracked(),
  target?: RequestTarget,
): ChatRequest {
  const contents = read(body, 'contents');
  if (Array.isArray(contents) && isObject(contents.at(-1)) && (contents.at(-1) as Json).role === 'model') {
    // Google asks for a final user turn; a provider of another format would answer after a
    // final model turn rather than continue it.
    const last = `contents[${contents.length - 1}].role`;
    throw invalid(last, 'Please ensure that multiturn requests end with a user role or a function response.');
  }
  return translated(body, adjust, target, false);
}

/**
 * The prompt of a countTokens body, which Google counts whatever turn it ends on and whether or
 * not its function responses follow their calls (Gemini CLI counts a tool result alone).
 */
export function hubPromptOfGemini(body: JsonObject, target?: RequestTarget): ChatRequest {
  return translated(body, untracked(), target, true);
}

function translated(
  body: JsonObject,
  adjust: Adjustments,
  target: RequestTarget | undefined,
  counting: boolean,
): ChatRequest {
  const problem = generateContentInvalid(body);
  if (problem) throw problem;
  for (const key of Object.keys(body)) {
    const name = camelCase(key);
    if (body[key] === undefined || body[key] === null) continue;
    if (DROPPED.has(name)) adjust.drop(name);
    else if (HINTS.has(name)) adjust.drop(name, () => unsupported(name));
    else if (REFUSED.has(name)) throw unsupported(name);
  }
  const system = read(body, 'systemInstruction');
  const messages = [
    ...systemMessagesOf(isObject(system) ? system : undefined),
    ...hubMessagesOf(read(body, 'contents') as Json[], adjust, counting),
  ];
  const stream = target?.stream === true;
  const req: Record<string, unknown> = {
    model: String(target?.model ?? body.model ?? ''),
    messages,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  const tools = toolChoiceOf(read(body, 'toolConfig'), toolsOf(body.tools, adjust), adjust);
  Object.assign(req, tools, generationOf(read(body, 'generationConfig'), adjust));
  return req as unknown as ChatRequest;
}
