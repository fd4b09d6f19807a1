import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Catalog, type Env, type GatewayConfig } from '#libs/config';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { RouterModule } from './router.module.js';
import { DEFAULT_ROUTER_OPTIONS, type RouterOptions } from './tokens.js';

/** The router app, initialised but not listening: main() listens, tests may use port 0. */
export async function createRouterApp(
  env: Env,
  config: GatewayConfig,
  options: Partial<RouterOptions> = {},
): Promise<NestFastifyApplication> {
  startTelemetry(env, 'router');
  const catalog = new Catalog(config, env.providerKeys);
  const module = RouterModule.forRoot({
    catalog,
    redis: env.redis,
    redisPrefix: env.redisPrefix,
    options: { ...DEFAULT_ROUTER_OPTIONS, ...options },
    secrets: env.secrets,
    env,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    module,
    new FastifyAdapter({ logger: false, return503OnClosing: true }),
    { logger: nestLogger(env, 'router') },
  );
  instrumentApp(app);
  await app.init();
  return app;
}
