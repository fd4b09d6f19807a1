/**
 * The Gemini API's checks of `contents` (after the body parsed): at least one content, each with
 * parts, each part with one data field, roles `user` or `model` (absent means user), and the
 * function-calling turn order: a function call turn right after a user turn or a function
 * response turn, and a function response turn right after a function call turn, answering as
 * many calls as it made. Messages as the API words them (public bug reports).
 *
 * Not refused, because it is not known to be: a function call turn left unanswered by a following
 * user text turn, and consecutive turns of one role. countTokens does not check the turn order:
 * Gemini CLI counts a lone function response turn (test/fixtures/agents).
 */
import type { GeminiContent, GeminiPart } from '../../../providers/gemini/wire.js';
import { geminiFieldError, geminiInvalid } from './gemini-errors.js';
import { DATA_FIELDS } from './gemini-proto-messages.js';
import type { Check } from './params.js';

const ROLES = new Set(['user', 'model']);

/** `at` names the request message in the errors (`GenerateContentRequest`, `CountTokensRequest`). */
export function validateContents(
  contents: readonly GeminiContent[] | undefined,
  at: string,
  turnOrder = true,
): Check {
  if (contents === undefined || contents.length === 0) {
    return geminiFieldError(`${at}.contents`, 'contents is not specified');
  }
  for (let i = 0; i < contents.length; i++) {
    const invalid = content(contents[i] as GeminiContent, `${at}.contents[${i}]`);
    if (invalid) return invalid;
  }
  for (const c of contents) {
    const role: string | undefined = c.role; // any string got through the parser
    if (role !== undefined && role !== '' && !ROLES.has(role)) {
      return geminiInvalid('Please use a valid role: user, model.');
    }
  }
  return turnOrder ? functionTurns(contents) : null;
}

/** Parts present and each carrying data; also used for `systemInstruction`. */
export function content(c: GeminiContent, at: string): Check {
  const parts = c.parts ?? [];
  if (parts.length === 0) return geminiFieldError(`${at}.parts`, 'contents.parts must not be empty.');
  for (let j = 0; j < parts.length; j++) {
    if (!hasData(parts[j] as GeminiPart)) {
      return geminiFieldError(
        `${at}.parts[${j}].data`,
        "required oneof field 'data' must have one initialized field",
      );
    }
  }
  return null;
}

const hasData = (part: GeminiPart): boolean =>
  DATA_FIELDS.some((k) => (part as Record<string, unknown>)[k] !== undefined);

const calls = (c: GeminiContent | undefined): number =>
  c?.role === 'model' ? c.parts.filter((p) => p.functionCall !== undefined).length : 0;

function functionTurns(contents: readonly GeminiContent[]): Check {
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i] as GeminiContent;
    const previous = contents[i - 1];
    if (calls(c) > 0 && (i === 0 || calls(previous) > 0)) {
      return geminiInvalid(
        'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
      );
    }
    const responses = c.parts.filter((p) => p.functionResponse !== undefined).length;
    if (responses === 0) continue;
    if (calls(previous) === 0) {
      return geminiInvalid(
        'Please ensure that function response turn comes immediately after a function call turn.',
      );
    }
    if (responses !== calls(previous)) {
      return geminiInvalid(
        'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      );
    }
  }
  return null;
}
