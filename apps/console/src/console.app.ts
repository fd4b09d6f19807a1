import 'reflect-metadata';
import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { Catalog, type Env, type GatewayConfig } from '#libs/config';
import { createRedis, redisKeys } from '#libs/redis';
import { StatusController } from './status.controller.js';
import { CATALOG, ENV, REDIS, REDIS_KEYS } from './tokens.js';

class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}

@Module({})
class ConsoleModule {
  static forRoot(env: Env, config: GatewayConfig): DynamicModule {
    return {
      module: ConsoleModule,
      controllers: [StatusController],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CATALOG, useValue: new Catalog(config, env.secrets) },
        { provide: REDIS_KEYS, useValue: redisKeys(env.redisPrefix) },
        { provide: REDIS, useFactory: () => createRedis(env.redisUrl, { name: 'console' }) },
        RedisCloser,
      ],
    };
  }
}

export async function createConsoleApp(env: Env, config: GatewayConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    ConsoleModule.forRoot(env, config),
    new FastifyAdapter(),
    {
      logger: ['error', 'warn', 'log'],
    },
  );
  await app.init();
  return app;
}
