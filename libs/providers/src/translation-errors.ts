import { GatewayError } from '#libs/protocol';

/**
 * The errors every translator raises, in one wording: a field the client got wrong, a field the
 * target cannot express (a 400 naming it, never a silent drop), and an upstream that broke its
 * own wire format.
 */

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** A cross-format 400: the field is valid, but `target` ("a Bedrock provider") cannot express it. */
export function unsupported(param: string, target: string): GatewayError {
  return invalid(param, `${param} is not supported when this model is served by ${target}.`);
}

export function upstreamError(message: string): GatewayError {
  return new GatewayError('upstream_error', message);
}

/**
 * One streamed event's data as a JSON object (SSE `data:` or an event-stream payload); `who`
 * names the sender in the error ("Anthropic", "The provider").
 */
export function streamedObject(data: string, who: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw upstreamError(`${who} streamed an event that is not JSON.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw upstreamError(`${who} streamed an event that is not an object.`);
  return parsed as Record<string, unknown>;
}
