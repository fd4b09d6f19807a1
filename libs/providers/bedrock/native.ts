import { type NativeRoute, type PreparedRequest } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';
import { usageFromMessage } from '../anthropic/index.js';
import { BEDROCK_ANTHROPIC_VERSION, invokePath } from './endpoint.js';
import { invokeMessagesWire } from './wire-format.js';

/**
 * A Messages client (Claude Code) on an Anthropic model, natively through InvokeModel: the body
 * passes as the client wrote it (`cache_control`, thinking, its tool types), but for what
 * Bedrock's Messages body differs in: no `model` (it is in the path), no `stream` (the path says
 * it: `invoke-with-response-stream`), and `anthropic_version: "bedrock-2023-05-31"`.
 */
export function prepareInvokeMessages(body: JsonObject): PreparedRequest {
  const out: JsonObject = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  for (const key in body) {
    if (key !== 'model' && key !== 'stream' && key !== 'anthropic_version') out[key] = body[key];
  }
  return { body: out, clientWantsUsage: true };
}

export const invokeMessagesRoute: NativeRoute = {
  path: invokePath,
  wire: invokeMessagesWire,
  prepare: prepareInvokeMessages,
  usageOfBody: usageFromMessage,
  usageMember: 'usage',
};
