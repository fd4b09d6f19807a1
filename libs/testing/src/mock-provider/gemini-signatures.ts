/**
 * Thought signatures. Real ones are opaque encrypted thoughts; the mock's are an HMAC of the part's
 * content under a fixed secret, so it can tell a signature it issued for that part from a missing,
 * altered or moved one, and recorded fixtures stay valid from run to run.
 *
 * Gemini 3 refuses a request whose current turn (everything after the last user message without
 * function responses) has a step whose first function call lacks its signature; the
 * documented dummy values skip the check (for calls that no Gemini model produced).
 */
import { createHmac } from 'node:crypto';
import type { GeminiContent, GeminiFunctionCall, GeminiPart } from '../../../providers/gemini/wire.js';
import { geminiInvalid } from './gemini-errors.js';
import type { Check } from './params.js';

const SECRET = 'mock-provider gemini thought signatures';
const SKIP_VALIDATION = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

/** JSON with sorted keys: a client may re-serialise arguments in another key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The signed content of a part: a call's name and arguments (not its id), or a text. */
function signedContent(part: GeminiPart): string {
  if (part.functionCall) return `call:${part.functionCall.name}:${canonical(part.functionCall.args ?? {})}`;
  return `text:${part.text ?? ''}`;
}

export function signPart(part: GeminiPart): string {
  return createHmac('sha256', SECRET).update(signedContent(part)).digest('base64');
}

export const signCall = (call: GeminiFunctionCall): string => signPart({ functionCall: call });

function verify(part: GeminiPart): boolean {
  return part.thoughtSignature === signPart(part) || SKIP_VALIDATION.has(part.thoughtSignature ?? '');
}

/** A function response turn, even with an image or text beside the responses, continues the turn. */
const isRealUserTurn = (c: GeminiContent): boolean =>
  c.role !== 'model' && c.parts.every((p) => p.functionResponse === undefined);

/** Gemini 3's check of the current turn's function calls. */
export function checkSignatures(contents: readonly GeminiContent[]): Check {
  let start = 0;
  contents.forEach((c, i) => {
    if (isRealUserTurn(c)) start = i + 1;
  });
  for (let i = start; i < contents.length; i++) {
    const content = contents[i] as GeminiContent;
    if (content.role !== 'model') continue;
    const first = content.parts.find((p) => p.functionCall !== undefined);
    if (!first) continue;
    if (first.thoughtSignature === undefined) return missing(first, i);
    if (!verify(first)) return geminiInvalid('Corrupted thought signature.');
  }
  return null;
}

function missing(part: GeminiPart, index: number): Check {
  return geminiInvalid(
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${part.functionCall?.name ?? ''}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
  );
}
