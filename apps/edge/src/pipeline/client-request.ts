import { type FastifyRequest } from 'fastify';
import { type KeyRecord } from '#libs/auth';
import { type Catalog, type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import {
  type ClientApi,
  type ClientRequestParts,
  type JsonObject,
  type RequestTarget,
} from '#libs/providers';
import { apiKeyOf } from '../auth/bearer.js';
import { type KeyResolver } from '../auth/key-resolver.service.js';
import { authorizeModel } from '../auth/model-access.js';
import { type RequestRecord } from '../logs/request-record.js';
import { type QuotaGate } from '../quota/quota-gate.service.js';

/** What a client request asks for, read before it is routed. */
export interface ClientRequest {
  readonly body: JsonObject;
  readonly target: RequestTarget;
}

/**
 * What admission reads of a client's request: where its key is (headers, query) and its body. A
 * Fastify request is one; a WebSocket session's request is its handshake's headers and query with
 * one event's body.
 */
export interface ClientInput {
  readonly headers: FastifyRequest['headers'];
  readonly query: unknown;
  readonly body: unknown;
}

/**
 * What admission reads of a client API: where its key is, how its body is checked and what it
 * asks for. A `ClientApi` is one; so is a WebSocket protocol whose handshake is admitted.
 */
export type AdmissionApi = Pick<ClientApi, 'keySources' | 'validate' | 'target' | 'streams'>;

/** The key, from wherever the client API's SDKs put it, authenticated; throws the client's error. */
export function authenticateClient(
  keys: KeyResolver,
  api: Pick<ClientApi, 'keySources'>,
  req: Omit<ClientInput, 'body'>,
): Promise<KeyRecord> {
  return keys.authenticate(apiKeyOf(req.headers, req.query, api.keySources));
}

/**
 * The body as the API checks it, and what the request asks for, wherever its API carries it.
 * Throws the client's error.
 */
export function readClientRequest(
  api: AdmissionApi,
  req: ClientInput,
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

function requireBody(api: AdmissionApi, body: unknown, parts: ClientRequestParts): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  const invalid = api.validate(body as JsonObject, parts);
  if (invalid !== null) throw invalid;
  return body as JsonObject;
}

/** A request let in: its key, its body as the API read it, the model its group may use. */
export interface Admitted extends ClientRequest {
  readonly key: KeyRecord;
  readonly model: ModelConfig;
  /** The configuration version the request keeps from admission to its charge. */
  readonly snapshot: CatalogSnapshot;
}

/**
 * How quota admits a request: `charged` checks the balance, the key's spend limit, budgets and
 * rates and leases the charge; `rates` only counts it against the key's and group's request rates
 * (a free call, such as counting tokens).
 */
export type QuotaAdmission = 'charged' | 'rates';

/** What admission reads: the key resolver, the configuration, the quota gate. */
export interface AdmissionServices {
  readonly keys: KeyResolver;
  readonly catalog: Catalog;
  readonly quota: QuotaGate;
}

/**
 * The one admission step of every client endpoint, whatever its kind (a model request, a token
 * count, each request of a WebSocket session or a job): the key, the body, a model the key's group
 * may use, and its quota (lease and rate limits), each step told to the request's record. Throws
 * the client's error.
 */
export async function admit(
  edge: AdmissionServices,
  api: AdmissionApi,
  req: ClientInput,
  parts: ClientRequestParts,
  record: RequestRecord,
  quota: QuotaAdmission,
): Promise<Admitted> {
  const snapshot = edge.catalog.snapshot();
  const key = await authenticateClient(edge.keys, api, req);
  record.authenticated(key);
  const { body, target } = readClientRequest(api, req, parts);
  record.requested(target.model);
  const model = authorizeModel(snapshot, key, target.model);
  if (quota === 'charged') {
    record.targeted(model.id, api.streams && target.stream, model.pricing);
    await edge.quota.admit(key, model.id);
  } else {
    record.targeted(model.id);
    await edge.quota.admitRate(key);
  }
  return { key, body, target, model, snapshot };
}
