import { refusedAsTooLong } from '../src/context-window.js';
import { isObject } from './fields.js';

const CODE = 'context_length_exceeded';

/** The error member of an OpenAI error body (`{error: {message, type, param, code}}`), if any. */
const errorOf = (body: unknown): Record<string, unknown> | null =>
  isObject(body) && isObject(body.error) ? body.error : null;

/**
 * OpenAI's refusal of a prompt its model's window cannot hold: a 400 whose error code is
 * `context_length_exceeded` (Chat Completions, Completions, Responses; Azure OpenAI's too),
 * whatever its message says ("This model's maximum context length is ...", "Your input exceeds
 * the context window of this model ...", "Input tokens exceed the configured limit ...").
 */
export function openAIContextExceeded(status: number, body: Buffer): boolean {
  return body.includes(CODE) && refusedAsTooLong(status, body, (b) => errorOf(b)?.code === CODE);
}

/** The words OpenAI-compatible servers refuse with when they give no code (vLLM, DeepSeek). */
const WORDS = /maximum context length is \d+ tokens/i;

/**
 * An OpenAI-compatible server's refusal: OpenAI's code (Groq), else OpenAI's words, which vLLM
 * (`{object: "error", message}`, or OpenAI's shape) and DeepSeek answer with a code of their own.
 */
export function compatibleContextExceeded(status: number, body: Buffer): boolean {
  if (openAIContextExceeded(status, body)) return true;
  return refusedAsTooLong(status, body, (b) => {
    const message = errorOf(b)?.message ?? (isObject(b) ? b.message : undefined);
    return typeof message === 'string' && WORDS.test(message);
  });
}
