import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { type Database } from '#libs/db';
import { GracefulDrain } from '#libs/runtime';
import { DB, REDIS } from '../tokens.js';
import { type RedisClient } from '#libs/redis';
import { Public } from '../session/principal.js';

@ApiExcludeController()
// No credentials: there is no guard here; declared so every console route states its rule.
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly drain: GracefulDrain,
  ) {}

  @Get('/healthz')
  health(): object {
    return { status: 'ok' };
  }

  /** Ready when both stores answer (sign-in needs Postgres for users, Redis for sessions); not while stopping. */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    const [redis, postgres] = await Promise.all([
      this.redis.ping().then(
        () => true,
        () => false,
      ),
      sql`select 1`.execute(this.db).then(
        () => true,
        () => false,
      ),
    ]);
    void reply.code(redis && postgres ? 200 : 503).send({ ready: redis && postgres, redis, postgres });
  }
}
