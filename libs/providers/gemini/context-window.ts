import { refusedAsTooLong } from '../src/context-window.js';
import { geminiErrorMessage } from './response.js';

/** "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)." */
const WORDS = /input token count.*exceeds the maximum number of tokens allowed/i;

/** Google's refusal of a prompt too long for a Gemini model (400 INVALID_ARGUMENT; Vertex AI's too). */
export function geminiContextExceeded(status: number, body: Buffer): boolean {
  return refusedAsTooLong(status, body, (b) => WORDS.test(geminiErrorMessage(b) ?? ''));
}
