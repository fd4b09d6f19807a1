import { type GatewayError } from '#libs/protocol';
import { untracked } from '../src/adjustments.js';
import { countPromptTokensAsync } from '../src/prompt-tokens.js';
import { tokenizerFor, type TokenizerFamily } from '../src/tokenizer.js';
import { type JsonObject } from '../src/types.js';
import { hubRequestOfMessages } from './client-request.js';
import { invalid } from './wire.js';

/**
 * Anthropic's own checks on a count_tokens body (the Messages body without `max_tokens`), with
 * its messages: a GatewayError naming the field, or null.
 */
export function countTokensInvalid(body: JsonObject): GatewayError | null {
  if (typeof body.model !== 'string' || body.model === '') return invalid('model', 'model: Field required');
  if (body.messages === undefined) return invalid('messages', 'messages: Field required');
  if (!Array.isArray(body.messages)) return invalid('messages', 'messages: Input should be a valid list');
  return null;
}

/**
 * A count_tokens body counted here, for a model no Anthropic provider serves: what the request
 * would send once translated (system, text, images, tool calls and results, tool definitions),
 * counted with the model family's tokenizer. A body the translation refuses (documents, top_k,
 * MCP servers...) throws its 400, as `/v1/messages` would for the same model.
 */
export async function countMessagesTokens(body: JsonObject, family: TokenizerFamily): Promise<number> {
  // max_tokens is no part of the prompt; the translator requires one.
  const hub = hubRequestOfMessages({ ...body, max_tokens: 1, stream: undefined }, untracked());
  return countPromptTokensAsync(hub, (await tokenizerFor(family)).countAll, family);
}
