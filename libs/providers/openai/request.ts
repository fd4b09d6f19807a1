import { type JsonObject } from '../src/types.js';

export interface PreparedRequest {
  readonly body: JsonObject;
  /** Whether the client itself asked for the usage chunk; if not, the gateway strips it. */
  readonly clientWantsUsage: boolean;
}

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

/** Model swap only (embeddings, responses): the body is otherwise untouched, usage never stripped. */
export function prepareModelOnly(body: JsonObject, upstreamModel: string): PreparedRequest {
  return {
    body: body.model === upstreamModel ? body : { ...body, model: upstreamModel },
    clientWantsUsage: true,
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
