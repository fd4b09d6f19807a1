import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { CLIENT_APIS, type ClientApi, type ClientRequestParts } from '#libs/providers';
import { inServerSpan, telemetry } from '#libs/telemetry';
import { sendException } from './exception.filter.js';
import { sendError } from './send-error.js';

/**
 * The model routes, served by Fastify directly: Nest's router cost every request allocations
 * (about 2.8 KB in a heap profile) and CPU for controllers that only called the pipeline. What
 * Nest did for them is done here: the server span when tracing, exceptions answered as the
 * exception filter answers them, an empty route parameter sent to the not-found handler, and the
 * handler settled only once the response is. Everything else (hooks, body parsing and limits, the
 * not-found and error handlers) is the Fastify instance's, shared with Nest's routes.
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

type Serve = (services: ModelServices, req: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface ModelRoute {
  readonly method: 'POST';
  readonly url: string;
  readonly serve: Serve;
}

const post = (url: string, serve: Serve): ModelRoute => ({ method: 'POST', url, serve });
const api =
  (which: ClientApi): Serve =>
  (services, req, reply) =>
    services.requests.handle(which, req, reply);

/** Query strings the SDKs add (`?beta=true`) are accepted and ignored by the APIs. */
export const MODEL_ROUTES: readonly ModelRoute[] = [
  post('/v1/chat/completions', api(CLIENT_APIS.chat)),
  post('/v1/completions', api(CLIENT_APIS.completions)),
  post('/v1/responses', api(CLIENT_APIS.responses)),
  post('/v1/embeddings', api(CLIENT_APIS.embeddings)),
  post('/v1/messages', api(CLIENT_APIS.messages)),
  post('/v1/messages/count_tokens', (services, req, reply) =>
    services.counter.handle(CLIENT_APIS.count_tokens, req, reply),
  ),
  post('/v1beta/models/:modelMethod', modelMethod),
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

/**
 * Registers the routes. Call after `app.init()`: a route takes the instance's error handler (for
 * its body parser's and body limit's errors), which Nest sets there.
 */
export function installModelRoutes(fastify: FastifyInstance, services: ModelServices): void {
  // As instrumentApp decides for Nest's routes: once, at boot.
  const traced = telemetry().tracing;
  for (const route of MODEL_ROUTES) {
    const handler = handlerOf(route.serve, services, traced);
    fastify.route({
      method: route.method,
      url: route.url,
      handler: route.url.includes('/:') ? nonEmptyParams(handler) : handler,
    });
  }
}

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;

function handlerOf(serve: Serve, services: ModelServices, traced: boolean): Handler {
  return async (req, reply) => {
    try {
      await (traced
        ? inServerSpan(req, reply, () => serve(services, req, reply))
        : serve(services, req, reply));
      // Settled once the response is, as Nest's handler was (it awaited the reply): Fastify sends
      // an empty answer for a handler that settles before a stream's first byte.
      await reply;
    } catch (err) {
      sendException(reply, err);
    }
  };
}

/**
 * The router matches an empty parameter (`/v1beta/models/`); Nest's adapter handed such requests
 * to the not-found handler before its route ran (a 404 in the client's shape), and so does this.
 */
function nonEmptyParams(handler: Handler): Handler {
  return (req, reply) => {
    const params = req.params as Record<string, string>;
    for (const name in params) {
      if (params[name] === '') {
        reply.callNotFound();
        return undefined;
      }
    }
    return handler(req, reply);
  };
}
