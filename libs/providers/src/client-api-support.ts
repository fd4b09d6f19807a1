import { GatewayError } from '#libs/protocol';
import { type PreparedRequest, type RequestTarget } from './adapter.js';
import { type JsonObject } from './types.js';

/**
 * Pieces most client APIs share: the model and stream flag in the body, the checks of those two,
 * the model swap of a passthrough. An API that puts them elsewhere (in the path) has its own.
 */

export const bodyTarget = (body: JsonObject): RequestTarget => ({
  model: body.model,
  stream: body.stream === true,
});

/** `stream`, when given, must be a boolean: anything else is refused rather than read as false. */
export function streamFlagInvalid(body: JsonObject): GatewayError | null {
  if (body.stream === undefined || typeof body.stream === 'boolean') return null;
  return new GatewayError('invalid_request', "Invalid type for 'stream': expected a boolean.", {
    param: 'stream',
  });
}

export const missingParameter = (field: string): GatewayError =>
  new GatewayError('invalid_request', `Missing required parameter: '${field}'.`, { param: field });

/** A passthrough where only the model changes; the client's usage choice is the upstream's. */
export function prepareModelOnly(body: JsonObject, upstreamModel: string): PreparedRequest {
  return {
    body: body.model === upstreamModel ? body : { ...body, model: upstreamModel },
    clientWantsUsage: true,
  };
}
