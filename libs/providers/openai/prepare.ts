import { type PreparedRequest } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';

export { prepareModelOnly } from '../src/client-api-support.js';

/**
 * Chat completions passthrough: only the model may change, and a streaming request always asks
 * upstream for usage, since the log and the charge need exact token counts.
 */
export function prepareChatRequest(body: JsonObject, upstreamModel: string): PreparedRequest {
  const stream = body.stream === true;
  const options = isObject(body.stream_options) ? body.stream_options : undefined;
  const clientWantsUsage = stream && options?.include_usage === true;
  if (!stream || clientWantsUsage) {
    return {
      body: body.model === upstreamModel ? body : { ...body, model: upstreamModel },
      clientWantsUsage,
    };
  }
  return {
    body: { ...body, model: upstreamModel, stream_options: { ...options, include_usage: true } },
    clientWantsUsage,
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Removes a top-level `"usage":null` member from a raw chunk: the chunks a client that did not ask
 * for usage would have seen. A quote inside a JSON string is always escaped, so an unescaped
 * `"usage":null` is structural; chunks carry no nested `usage`.
 */
export function withoutNullUsage(raw: string): string {
  return raw.includes('"usage"') ? raw.replace(NULL_USAGE, '') : raw;
}

const NULL_USAGE = /,\s*"usage"\s*:\s*null(?=\s*[,}])|"usage"\s*:\s*null\s*,/;
