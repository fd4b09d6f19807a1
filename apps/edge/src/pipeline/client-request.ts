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
import { type RequestRecord } from '../logs/request-record.js';

/** What every client request is read into before it is routed. */
export interface ClientRequest {
  readonly key: KeyRecord;
  readonly body: JsonObject;
  readonly target: RequestTarget;
}

/**
 * The key (authenticated, and told to the record), the body as the API checks it, and what the
 * request asks for, wherever its API carries it. Throws the client's error on any of them.
 */
export async function readClientRequest(
  keys: KeyResolver,
  api: ClientApi,
  req: FastifyRequest,
  parts: ClientRequestParts,
  record: RequestRecord,
): Promise<ClientRequest> {
  const key = await keys.authenticate(apiKeyOf(req.headers, req.query, api.keySources));
  record.authenticated(key);
  const body = requireBody(api, req.body, parts);
  return { key, body, target: api.target(body, parts) };
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
