import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Kysely } from 'kysely';
import { type Database, pingDatabase } from '#libs/db';
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
  ) {}

  /** Liveness: the process answers; plus the batcher's state for an operator. */
  @Get('/healthz')
  health(): object {
    return { status: 'ok', queue: this.processor.status };
  }

  /** Readiness: both stores answer within a second. */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const [redis, postgres] = await Promise.all([answers(this.redis.ping()), answers(pingDatabase(this.db))]);
    const ready = redis && postgres;
    void reply.code(ready ? 200 : 503).send({ ready, redis, postgres });
  }
}
