import { refusedAsTooLong } from '../src/context-window.js';
import { anthropicErrorMessage } from './response.js';

/**
 * Anthropic's words for a request its model's window cannot hold: the prompt alone ("prompt is
 * too long: 215000 tokens > 200000 maximum"), or with `max_tokens` ("input length and
 * `max_tokens` exceed context limit: 188000 + 21333 > 200000, ..."). Vertex AI and Bedrock pass
 * them on for Claude.
 */
const WORDS = /^prompt is too long|exceed context limit/i;

/** Anthropic's refusal of a request too long for the model's context window (a 400 invalid_request_error). */
export function anthropicContextExceeded(status: number, body: Buffer): boolean {
  return refusedAsTooLong(status, body, (b) => WORDS.test(anthropicErrorMessage(b) ?? ''));
}
