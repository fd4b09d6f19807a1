import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Kysely } from 'kysely';
import { type Database, pingDatabase } from '#libs/db';
import { GracefulDrain } from '#libs/runtime';
import { RequestLogProcessor } from '../request-logs/request-log.processor.js';
import { DB, REDIS } from '../tokens.js';
import { type RedisClient } from '#libs/redis';

const PROBE_TIMEOUT_MS = 1_000;

function answers(probe: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
  });
  return Promise.race([
    probe.then(
      () => true,
      () => false,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

@Controller()
export class HealthController {
  constructor(
    private readonly processor: RequestLogProcessor,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly drain: GracefulDrain,
  ) {}

  /** Liveness: the process answers; plus the batcher's state for an operator. */
  @Get('/healthz')
  health(): object {
    return { status: 'ok', queue: this.processor.status };
  }

  /** Readiness: both stores answer within a second; not while stopping (it is finishing its batch). */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    const [redis, postgres] = await Promise.all([answers(this.redis.ping()), answers(pingDatabase(this.db))]);
    const ready = redis && postgres;
    void reply.code(ready ? 200 : 503).send({ ready, redis, postgres });
  }
}
