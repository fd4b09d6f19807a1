import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { CLIENT_APIS, type ClientApi, type ClientRequestParts } from '#libs/providers';
import { type EdgeRoute, jsonRoute, type JsonServe } from './endpoint-kinds.js';
import { installRoutes } from './route-install.js';
import { sendError } from './send-error.js';

/**
 * The model routes, served by Fastify directly: Nest's router cost every request allocations
 * (about 2.8 KB in a heap profile) and CPU for controllers that only called the pipeline. Each is
 * declared with its endpoint kind (endpoint-kinds.ts) and installed by its kind's adapter
 * (route-install.ts). Everything else (hooks, the JSON parser and body limit, the not-found and
 * error handlers) is the Fastify instance's, shared with Nest's routes.
 */

/** A pipeline service as these routes call it (pipeline/ imports http/, so not by its class). */
export interface ApiHandler {
  handle(api: ClientApi, req: FastifyRequest, reply: FastifyReply, parts?: ClientRequestParts): Promise<void>;
}

/** Resolved from the Nest container once, at boot; their `handle` is looked up per request. */
export interface ModelServices {
  /** Every model API (ModelRequestService). */
  readonly requests: ApiHandler;
  /** The token-count APIs (TokenCountService). */
  readonly counter: ApiHandler;
}

type Serve = JsonServe<ModelServices>;

const api =
  (which: ClientApi): Serve =>
  (services, req, reply) =>
    services.requests.handle(which, req, reply);

/** Query strings the SDKs add (`?beta=true`) are accepted and ignored by the APIs. */
export const MODEL_ROUTES: ReadonlyArray<EdgeRoute<ModelServices>> = [
  jsonRoute('/v1/chat/completions', api(CLIENT_APIS.chat)),
  jsonRoute('/v1/completions', api(CLIENT_APIS.completions)),
  jsonRoute('/v1/responses', api(CLIENT_APIS.responses)),
  jsonRoute('/v1/embeddings', api(CLIENT_APIS.embeddings)),
  jsonRoute('/v1/messages', api(CLIENT_APIS.messages)),
  jsonRoute('/v1/messages/count_tokens', (services, req, reply) =>
    services.counter.handle(CLIENT_APIS.count_tokens, req, reply),
  ),
  jsonRoute('/v1beta/models/:modelMethod', modelMethod),
];

/**
 * Custom methods on a model, `POST /v1beta/models/{model}:{method}`: the model goes in the path,
 * so the method is whatever follows its last colon (model ids may hold colons: `llama3:8b`).
 */
function modelMethod(services: ModelServices, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const path = (req.params as { modelMethod: string }).modelMethod;
  const colon = path.lastIndexOf(':');
  const parts: ClientRequestParts = {
    params: { model: path.slice(0, colon), action: path.slice(colon + 1) },
    query: (req.query ?? {}) as ClientRequestParts['query'],
  };
  switch (colon > 0 ? parts.params.action : '') {
    case 'generateContent':
    case 'streamGenerateContent':
      return services.requests.handle(CLIENT_APIS.generate_content, req, reply, parts);
    case 'countTokens':
      return services.counter.handle(CLIENT_APIS.count_content_tokens, req, reply, parts);
    default:
      sendError(reply, new GatewayError('not_found', `Method not found: ${path.slice(0, 100)}.`));
      return Promise.resolve();
  }
}

/** Registers the model routes. Call after `app.init()` (see installRoutes). */
export function installModelRoutes(fastify: FastifyInstance, services: ModelServices): void {
  installRoutes(fastify, services, MODEL_ROUTES);
}
