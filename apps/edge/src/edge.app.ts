import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Env, type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { EdgeModule } from './edge.module.js';
import { EdgeExceptionFilter } from './http/exception.filter.js';

/** OpenAI-style request ids; never taken from the client, since the log is keyed by them. */
const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

export async function createEdgeApp(env: Env, config: GatewayConfig): Promise<NestFastifyApplication> {
  startTelemetry(env, 'edge');
  const adapter = new FastifyAdapter({
    bodyLimit: config.edge.body_limit_bytes,
    genReqId: newRequestId,
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(EdgeModule.forRoot(env, config), adapter, {
    logger: nestLogger(env, 'edge'),
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();

  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', req.id);
    done();
  });
  // Our own JSON parser: errors come out in the client's format instead of Fastify's.
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (_req: FastifyRequest, body: Buffer, done) => {
      if (body.length === 0)
        return done(new GatewayError('invalid_json', 'The request body is empty; expected JSON.'), undefined);
      try {
        done(null, JSON.parse(body.toString('utf8')));
      } catch {
        done(
          new GatewayError('invalid_json', 'We could not parse the JSON body of your request.'),
          undefined,
        );
      }
    },
  );
  // Fastify's own errors (parser, body limit, unknown route) reach this filter too: Nest installs
  // its exception layer as Fastify's error handler at init, replacing any set here before.
  app.useGlobalFilters(new EdgeExceptionFilter());
  instrumentApp(app);
  await app.init();
  return app;
}
