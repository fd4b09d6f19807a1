import { refusedAsTooLong } from '../src/context-window.js';
import { bedrockErrorMessage } from './mapping.js';

/**
 * Bedrock's ValidationException for a prompt too long for the model: "Input is too long for
 * requested model." (Converse prefixes "The model returned the following errors: "), or, for
 * Claude through InvokeModel, Anthropic's own words.
 */
const WORDS = /input is too long for requested model|prompt is too long|exceed context limit/i;

export function bedrockContextExceeded(status: number, body: Buffer): boolean {
  return refusedAsTooLong(status, body, (b) => WORDS.test(bedrockErrorMessage(b) ?? ''));
}
