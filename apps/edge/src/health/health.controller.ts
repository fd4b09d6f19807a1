import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { GracefulDrain } from '#libs/runtime';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { REDIS } from '../tokens.js';

@Controller()
export class HealthController {
  constructor(
    private readonly routes: RoutesService,
    private readonly logs: LogShipper,
    private readonly keys: KeyResolver,
    private readonly samples: SampleShipper,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly drain: GracefulDrain,
  ) {}

  /**
   * Liveness, plus what an operator needs to judge this edge: route freshness (`stale` once the
   * router has been silent for `routing.stale_after_ms`: the edge routes on its last view and its
   * local breaker), the local breaker, and the log and sample backlogs.
   */
  @Get('/healthz')
  health(): object {
    return {
      status: 'ok',
      routes: this.routes.status(),
      local: this.routes.localView(),
      samples: {
        pending: this.samples.pending,
        shipped: this.samples.shipped,
        dropped: this.samples.dropped,
      },
      logs: this.logs.status,
      keyCache: { hits: this.keys.hits, misses: this.keys.misses },
    };
  }

  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    // Shutting down: fail first, so load balancers stop sending while in-flight requests finish.
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    const redisOk = await this.redis.ping().then(
      () => true,
      () => false,
    );
    void reply
      .code(redisOk ? 200 : 503)
      .send({ ready: redisOk, redis: redisOk, routes: this.routes.status() });
  }
}
