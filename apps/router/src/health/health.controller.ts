import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GracefulDrain } from '#libs/runtime';
import { RouteView } from '../routes/route-view.service.js';
import { REDIS } from '../tokens.js';
import { type RedisClient } from '#libs/redis';

const REDIS_CHECK_TIMEOUT_MS = 1_000;

@Controller()
export class HealthController {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly view: RouteView,
    private readonly drain: GracefulDrain,
  ) {}

  /** Liveness only: the process answers. */
  @Get('/healthz')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready when Redis answers and some router (this one or another) has published a table; not while stopping. */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = setTimeout(() => resolve(false), REDIS_CHECK_TIMEOUT_MS)),
    );
    const redisOk = await Promise.race([
      this.redis.ping().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    const table = this.view.current();
    const ready = redisOk && table !== null;
    void reply.code(ready ? 200 : 503).send({ ready, redis: redisOk, routesVersion: table?.version ?? null });
  }
}
