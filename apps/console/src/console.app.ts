import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Env, type GatewayConfig } from '#libs/config';
import { type JsonBodyFault, MAX_JSON_DEPTH, parseJsonBody } from '#libs/protocol';
import { httpServerOptions, installHttpHooks } from '#libs/runtime';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { ConsoleModule } from './console.module.js';
import { resolveConsoleSettings } from './console-settings.js';
import { ApiError } from './http/api-error.js';
import { widenConfigDocumentLimit } from './http/body-limits.js';
import { CONFIG_EDITORS } from './config/config.controller.js';
import { allowRule } from './session/principal.js';
import { SessionGuard } from './session/session.guard.js';
import {
  ApiExceptionFilter,
  renderConnectionFault,
  sendApiError,
  toApiError,
} from './http/api-exception.filter.js';

/** An empty JSON body reads as no body (e.g. POST .../revoke), hence no entry for it. */
const BODY_FAULTS: Readonly<Record<Exclude<JsonBodyFault, 'empty'>, string>> = {
  invalid: 'The request body is not valid JSON.',
  too_deep: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
};
import { setupOpenApi } from './openapi.js';

export async function createConsoleApp(env: Env, config: GatewayConfig): Promise<NestFastifyApplication> {
  startTelemetry(env, 'console');
  const settings = resolveConsoleSettings(env, config);
  const adapter = new FastifyAdapter({
    ...httpServerOptions(settings.bodyLimitBytes, renderConnectionFault),
    trustProxy: settings.trustProxy,
    // A path Fastify cannot decode (`%zz`) is refused before any hook runs.
    frameworkErrors: (error: Error, req: FastifyRequest, reply: FastifyReply) =>
      sendApiError(reply, toApiError(error, req)),
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
  installHttpHooks(fastify);
  // Before app.init(), which registers the routes: the whole-document routes get a larger limit,
  // and authenticate their caller before reading it.
  const guard = app.get(SessionGuard);
  fastify.addHook('onRoute', (route) =>
    widenConfigDocumentLimit(route, (req) => guard.admitBeforeBody(req, allowRule(...CONFIG_EDITORS))),
  );
  fastify.removeAllContentTypeParsers();
  // JSON only: a form or text/plain POST (what a cross-site page can send without a preflight)
  // finds no parser and gets 415.
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    const parsed = parseJsonBody(body);
    if (parsed.ok) done(null, parsed.value);
    else if (parsed.fault === 'empty') done(null, undefined);
    else done(new ApiError('invalid_request', BODY_FAULTS[parsed.fault]), undefined);
  });
  // Fastify's own errors (parser, body limit, unknown route) reach this filter too: Nest installs
  // its exception layer as Fastify's error handler at init, replacing any set here before.
  app.useGlobalFilters(new ApiExceptionFilter());
  setupOpenApi(app);
  instrumentApp(app);
  await app.init();
  return app;
}
