import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Env, type GatewayConfig } from '#libs/config';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { ConsoleModule } from './console.module.js';
import { resolveConsoleSettings } from './console-settings.js';
import { ApiError } from './http/api-error.js';
import { ApiExceptionFilter } from './http/api-exception.filter.js';
import { setupOpenApi } from './openapi.js';

export async function createConsoleApp(env: Env, config: GatewayConfig): Promise<NestFastifyApplication> {
  startTelemetry(env, 'console');
  const settings = resolveConsoleSettings(env, config);
  const adapter = new FastifyAdapter({
    bodyLimit: settings.bodyLimitBytes,
    trustProxy: settings.trustProxy,
    logger: false,
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    ConsoleModule.forRoot(env, config, settings),
    adapter,
    {
      logger: nestLogger(env, 'console'),
      bodyParser: false,
    },
  );
  await app.register(fastifyCookie);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeAllContentTypeParsers();
  // JSON only: a form or text/plain POST (what a cross-site page can send without a preflight)
  // finds no parser and gets 415. An empty JSON body reads as no body (e.g. POST .../revoke).
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body: string, done) => {
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch {
      done(new ApiError('invalid_request', 'The request body is not valid JSON.'), undefined);
    }
  });
  // Fastify's own errors (parser, body limit, unknown route) reach this filter too: Nest installs
  // its exception layer as Fastify's error handler at init, replacing any set here before.
  app.useGlobalFilters(new ApiExceptionFilter());
  setupOpenApi(app);
  instrumentApp(app);
  await app.init();
  return app;
}
