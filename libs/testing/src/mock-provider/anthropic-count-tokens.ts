import { anthropicInvalid, isObject, unknownField, type Check } from './params.js';
import { textOf, tokensForLength } from './text.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';

/** The fields Anthropic's count_tokens takes: a Messages body without the generation settings. */
const PARAMS = new Set([
  'messages',
  'model',
  'cache_control',
  'context_management',
  'mcp_servers',
  'output_config',
  'output_format',
  'system',
  'thinking',
  'tool_choice',
  'tools',
]);

/**
 * `POST /v1/messages/count_tokens`: `{ input_tokens }`, a pure function of the body (the text of
 * system and messages, as `/v1/messages` reports it, plus the tools' JSON) so tests predict it.
 */
export function countTokens({ body }: EndpointInput): EndpointReply {
  const invalid = validate(body);
  if (invalid) return invalid;
  let chars = textOf(body.system).length;
  for (const m of body.messages as JsonObject[]) chars += textOf(m.content).length;
  if (body.tools !== undefined) chars += JSON.stringify(body.tools).length;
  return { kind: 'json', status: 200, body: { input_tokens: tokensForLength(chars) } };
}

/** Anthropic's messages: required, a non-empty list of user and assistant turns. */
function validate(body: JsonObject): Check {
  const unknown = unknownField(body, PARAMS);
  if (unknown !== null) return anthropicInvalid(`${unknown}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string' || body.model === '') return anthropicInvalid('model: Field required');
  if (body.messages === undefined) return anthropicInvalid('messages: Field required');
  if (!Array.isArray(body.messages)) return anthropicInvalid('messages: Input should be a valid list');
  if (body.messages.length === 0) return anthropicInvalid('messages: at least one message is required');
  const bad = body.messages.findIndex((m) => !isObject(m) || (m.role !== 'user' && m.role !== 'assistant'));
  if (bad >= 0) return anthropicInvalid(`messages.${bad}.role: Input should be 'user' or 'assistant'`);
  return null;
}
