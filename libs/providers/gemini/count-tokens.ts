import { countPromptTokensAsync } from '../src/prompt-tokens.js';
import { tokenizerFor, type TokenizerFamily } from '../src/tokenizer.js';
import { type JsonObject } from '../src/types.js';
import { isObject, read } from './client-fields.js';
import { hubPromptOfGemini } from './client-request.js';
import { type GeminiCountTokensResponse } from './wire.js';

/** The body a countTokens request counts: its `generateContentRequest`, else its `contents` alone. */
export function countedBody(body: JsonObject): JsonObject {
  const inner = read(body, 'generateContentRequest');
  return isObject(inner) ? inner : { contents: read(body, 'contents') };
}

/**
 * A countTokens body counted here, for a model no Gemini provider serves: what the request would
 * send once translated (system instruction, text, images, function calls and responses, function
 * declarations), counted with the model family's tokenizer. A body the translation refuses (a PDF,
 * cachedContent...) throws its 400, as generateContent would for the same model. A final model
 * turn is counted: countTokens takes any conversation.
 */
export async function countGeminiTokens(body: JsonObject, family: TokenizerFamily): Promise<number> {
  const hub = hubPromptOfGemini(countedBody(body), { model: 'count', stream: false });
  return countPromptTokensAsync(hub, (await tokenizerFor(family)).countAll, family);
}

export const countTokensAnswer = (tokens: number): GeminiCountTokensResponse & JsonObject => ({
  totalTokens: tokens,
});
