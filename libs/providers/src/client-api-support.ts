import { GatewayError } from '#libs/protocol';
import { type HeaderMap, type PreparedRequest, type RequestTarget } from './adapter.js';
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

/** A header's value when sent once and not empty (a repeated header names no one session). */
export function headerText(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A body field's value when it is a non-empty string. */
export function stringField(object: unknown, field: string): string | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const value = (object as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
