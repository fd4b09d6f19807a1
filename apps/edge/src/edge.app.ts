import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Env, type GatewayConfig } from '#libs/config';
import { httpServerOptions, installHttpHooks } from '#libs/runtime';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { EdgeModule } from './edge.module.js';
import { EdgeExceptionFilter, toGatewayError } from './http/exception.filter.js';
import { installJsonParser } from './http/json-body.js';
import { LargeBodyBudget } from './http/large-bodies.js';
import { MODEL_ROUTES } from './http/model-routes.js';
import { installRoutes } from './http/route-install.js';
import { renderConnectionFault, sendError } from './http/send-error.js';
import { ModelRequestService } from './pipeline/model-request.service.js';
import { TokenCountService } from './pipeline/token-count.service.js';
import { RealtimeSessions } from './realtime/realtime-sessions.service.js';
import { REALTIME_ROUTES } from './realtime/realtime-route.js';
import { SOCKET_ROUTES } from './sockets/socket-routes.js';
import { SocketSessions } from './sockets/socket-sessions.service.js';

/** `clock`: the quota windows' and request starts' time source (tests cross midnight with it). */
export async function createEdgeApp(
  env: Env,
  config: GatewayConfig,
  clock: () => number = Date.now,
): Promise<NestFastifyApplication> {
  startTelemetry(env, 'edge');
  const adapter = new FastifyAdapter({
    ...httpServerOptions(config.edge.body_limit_bytes, renderConnectionFault),
    // A path Fastify cannot decode (`%zz`) is refused before any hook runs.
    frameworkErrors: (error: Error, req: FastifyRequest, reply: FastifyReply) =>
      sendError(reply, toGatewayError(error, req.method, req.url)),
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    EdgeModule.forRoot(env, config, clock),
    adapter,
    {
      logger: nestLogger(env, 'edge'),
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  installHttpHooks(fastify);
  new LargeBodyBudget(config.edge.large_body_bytes, config.edge.large_bodies_budget_bytes).install(fastify);
  installJsonParser(fastify);
  // Fastify's own errors (parser, body limit, unknown route) reach this filter too: Nest installs
  // its exception layer as Fastify's error handler at init, replacing any set here before.
  app.useGlobalFilters(new EdgeExceptionFilter());
  instrumentApp(app);
  await app.init();
  // Fastify's own routes, not Nest's (Nest's router cost each request allocations and CPU for
  // nothing these routes use); after init, where Nest sets the error handler they take.
  // One table: the WebSocket routes share one upgrade listener (route-install.ts).
  installRoutes(
    fastify,
    {
      requests: app.get(ModelRequestService),
      counter: app.get(TokenCountService),
      sockets: app.get(SocketSessions),
      realtime: app.get(RealtimeSessions),
    },
    [...MODEL_ROUTES, ...SOCKET_ROUTES, ...REALTIME_ROUTES],
    // The library's hard cap; the session refuses past max_message_bytes with an error event first.
    { maxPayloadBytes: 2 * config.edge.websockets.max_message_bytes },
  );
  return app;
}
