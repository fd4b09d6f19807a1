import fastifyWebsocket from '@fastify/websocket';
import { Logger } from '@nestjs/common';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { inServerSpan, telemetry } from '#libs/telemetry';
import { clientSocket, type LibrarySocket } from './client-socket.js';
import { type EdgeRoute, type JobRoute, type SessionRoute, type UploadRoute } from './endpoint-kinds.js';
import { sendException } from './exception.filter.js';
import { sendError } from './send-error.js';
import { installUploadParsers, ReceivedUpload } from './upload-body.js';

/**
 * Registers routes of every endpoint kind on Fastify directly (not Nest's router: see
 * model-routes.ts), each through its kind's adapter. What Nest did for its routes is done here for
 * all of them: the server span when tracing, exceptions answered as the exception filter answers
 * them, an empty route parameter sent to the not-found handler, and the handler settled only once
 * the response is. JSON and job routes live on the instance, with its JSON parser; each upload
 * route and the WebSocket routes get a scope of their own, so their body parsers and the
 * WebSocket plugin's hooks never touch a JSON request. Call after `app.init()`: the routes take
 * the instance's error handler (for their parsers' and body limit's errors), which Nest sets there.
 */
export function installRoutes<S>(
  fastify: FastifyInstance,
  services: S,
  routes: readonly EdgeRoute<S>[],
  sockets: SocketOptions = DEFAULT_SOCKET_OPTIONS,
): void {
  // As instrumentApp decides for Nest's routes: once, at boot.
  const traced = telemetry().tracing;
  const sessions: Array<SessionRoute<S>> = [];
  for (const route of routes) {
    switch (route.kind) {
      case 'json': {
        const { serve } = route;
        addRoute(
          fastify,
          route.url,
          handlerOf(traced, (req, reply) => serve(services, req, reply)),
        );
        break;
      }
      case 'job':
        addRoute(fastify, route.url, handlerOf(traced, accepting(route, services)));
        break;
      case 'upload':
        void fastify.register((scope, _opts, done) => {
          installUploadParsers(scope, route.accepts);
          addRoute(scope, route.url, handlerOf(traced, uploading(route, services)));
          done();
        });
        break;
      case 'websocket':
        sessions.push(route);
        break;
    }
  }
  // Only when a table declares one: no upgrade listener on an edge that serves no socket.
  if (sessions.length > 0) installSessions(fastify, services, sessions, sockets);
}

/** What the WebSocket library enforces for every session route. */
export interface SocketOptions {
  /**
   * A message longer than this is refused by the library at its frame header, before its bytes
   * are read: it closes the socket with 1009 itself.
   */
  readonly maxPayloadBytes: number;
}

const DEFAULT_SOCKET_OPTIONS: SocketOptions = { maxPayloadBytes: 64 * 1024 * 1024 };

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;
type Call = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

function addRoute(fastify: FastifyInstance, url: string, handler: Handler): void {
  fastify.route({ method: 'POST', url, handler: url.includes('/:') ? nonEmptyParams(handler) : handler });
}

/** A job is accepted now and its acceptance is the whole answer: the handler never holds the reply. */
function accepting<S>(route: JobRoute<S>, services: S): Call {
  return async (req, reply) => {
    const accepted = await route.serve(services, req);
    void reply.code(accepted.status).type('application/json').send(accepted.body);
  };
}

function uploading<S>(route: UploadRoute<S>, services: S): Call {
  const refusal = `This endpoint takes ${route.accepts.join(' or ')} bodies.`;
  return (req, reply) => {
    // No body at all finds no parser: refused as any other type the route does not take.
    if (!(req.body instanceof ReceivedUpload)) throw new GatewayError('unsupported_media_type', refusal);
    return route.serve(services, req, req.body, reply);
  };
}

function handlerOf(traced: boolean, call: Call): Handler {
  return async (req, reply) => {
    try {
      await (traced ? inServerSpan(req, reply, () => call(req, reply)) : call(req, reply));
      // Settled once the response is, as Nest's handler was (it awaited the reply): Fastify sends
      // an empty answer for a handler that settles before a stream's first byte.
      await reply;
    } catch (err) {
      // An upload cut at its limit was not read to its end: the rest is not worth reading.
      if (isTooLarge(err) && !req.raw.complete) void reply.header('connection', 'close');
      sendException(reply, err);
    }
  };
}

const isTooLarge = (err: unknown): boolean => err instanceof GatewayError && err.code === 'request_too_large';

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

const sessionLog = new Logger('EdgeSessions');

/**
 * The WebSocket routes, in one scope with `@fastify/websocket`: it routes each upgrade through
 * Fastify (so the request id, the hooks and the handshake check run as for any request, and a
 * refused handshake is an HTTP error in the client's shape) before upgrading. A plain GET of a
 * session route is a 404 in the client's shape.
 */
function installSessions<S>(
  fastify: FastifyInstance,
  services: S,
  routes: ReadonlyArray<SessionRoute<S>>,
  sockets: SocketOptions,
): void {
  void fastify.register(async (scope) => {
    await scope.register(fastifyWebsocket, {
      options: { maxPayload: sockets.maxPayloadBytes },
      // A session's own bug: the client gets a close frame that says so, the log the cause.
      errorHandler: (err: Error, socket: LibrarySocket, req: FastifyRequest) => {
        sessionLog.error({ msg: 'WebSocket session failed', request_id: req.id, err });
        socket.close(1011, 'internal error');
      },
    });
    for (const route of routes) {
      scope.route({
        method: 'GET',
        url: route.url,
        preHandler: (req: FastifyRequest) => route.handshake(services, req),
        handler: (req, reply) =>
          sendError(reply, new GatewayError('not_found', `${route.url} takes a WebSocket upgrade.`)),
        wsHandler: (socket: LibrarySocket, req: FastifyRequest) =>
          route.serve(services, req, clientSocket(socket)),
      });
    }
  });
}
