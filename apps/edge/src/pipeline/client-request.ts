import { type FastifyRequest } from 'fastify';
import { type KeyRecord } from '#libs/auth';
import { GatewayError } from '#libs/protocol';
import {
  type ClientApi,
  type ClientRequestParts,
  type JsonObject,
  type RequestTarget,
} from '#libs/providers';
import { apiKeyOf } from '../auth/bearer.js';
import { type KeyResolver } from '../auth/key-resolver.service.js';

/** What a client request asks for, read before it is routed. */
export interface ClientRequest {
  readonly body: JsonObject;
  readonly target: RequestTarget;
}

/** The key, from wherever the client API's SDKs put it, authenticated; throws the client's error. */
export function authenticateClient(
  keys: KeyResolver,
  api: ClientApi,
  req: FastifyRequest,
): Promise<KeyRecord> {
  return keys.authenticate(apiKeyOf(req.headers, req.query, api.keySources));
}

/**
 * The body as the API checks it, and what the request asks for, wherever its API carries it.
 * Throws the client's error.
 */
export function readClientRequest(
  api: ClientApi,
  req: FastifyRequest,
  parts: ClientRequestParts,
): ClientRequest {
  const body = requireBody(api, req.body, parts);
  return { body, target: api.target(body, parts) };
}

/** Route parameters and query, for APIs that carry the model or options outside the body. */
export function requestParts(req: FastifyRequest): ClientRequestParts {
  return {
    params: (req.params ?? {}) as ClientRequestParts['params'],
    query: (req.query ?? {}) as ClientRequestParts['query'],
  };
}

function requireBody(api: ClientApi, body: unknown, parts: ClientRequestParts): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  const invalid = api.validate(body as JsonObject, parts);
  if (invalid !== null) throw invalid;
  return body as JsonObject;
}
