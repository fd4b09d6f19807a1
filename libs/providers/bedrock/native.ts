import { type HeaderMap, type NativeRoute, type PreparedRequest } from '../src/adapter.js';
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
export function prepareInvokeMessages(
  body: JsonObject,
  _upstreamModel?: string,
  client: HeaderMap = {},
): PreparedRequest {
  const out: JsonObject = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const betas = bedrockBetas(client['anthropic-beta']);
  if (betas.length > 0) out.anthropic_beta = betas;
  for (const key in body) {
    if (key !== 'model' && key !== 'stream' && key !== 'anthropic_version' && key !== 'anthropic_beta')
      out[key] = body[key];
  }
  return { body: out, clientWantsUsage: true };
}

/**
 * The beta features Bedrock documents for Claude's Messages body. The client's `anthropic-beta`
 * header goes into the body as `anthropic_beta`, less the flags Bedrock does not know, which it
 * refuses ("invalid beta flag") where Anthropic ignores them: Claude Code sends several of those.
 */
export const BEDROCK_BETAS: ReadonlySet<string> = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
]);

function bedrockBetas(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const flags = (Array.isArray(header) ? header.join(',') : header).split(',').map((f) => f.trim());
  return [...new Set(flags.filter((f) => BEDROCK_BETAS.has(f)))];
}

export const invokeMessagesRoute: NativeRoute = {
  path: invokePath,
  wire: invokeMessagesWire,
  prepare: prepareInvokeMessages,
  usageOfBody: usageFromMessage,
  usageMember: 'usage',
};
