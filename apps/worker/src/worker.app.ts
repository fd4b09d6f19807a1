import 'reflect-metadata';
import { type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Env, type GatewayConfig } from '#libs/config';
import { instrumentApp, nestLogger, startTelemetry } from '#libs/telemetry';
import { WorkerModule } from './worker.module.js';

/** Builds and initializes the worker (queue consumer started); the caller decides on listen(). */
export async function createWorkerApp(
  env: Env,
  config: GatewayConfig,
  opts: { logLevels?: LogLevel[] } = {},
): Promise<NestFastifyApplication> {
  startTelemetry(env, 'worker');
  const adapter = new FastifyAdapter({ logger: false, return503OnClosing: true });
  const app = await NestFactory.create<NestFastifyApplication>(WorkerModule.forRoot(env, config), adapter, {
    logger: nestLogger(env, 'worker', opts.logLevels),
  });
  instrumentApp(app);
  await app.init();
  return app;
}
