import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GracefulDrain } from '#libs/runtime';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { REDIS } from '../tokens.js';
import { type RedisClient } from '#libs/redis';

@Controller()
export class HealthController {
  constructor(
    private readonly routes: RoutesService,
    private readonly logs: LogShipper,
    private readonly keys: KeyResolver,
    private readonly samples: SampleShipper,
    @Inject(REDIS) private readonly redis: RedisClient,
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

  /**
   * Readiness fails only while this edge shuts down (first, so load balancers stop sending while
   * in-flight requests finish). Redis is reported, not required: an edge serves known keys from
   * memory and spools its logs while Redis is away, and failing readiness on a shared dependency
   * would pull every edge out of service at once.
   */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    // Bounded: a ping queued behind a reconnecting client must not outlast the probe's timeout.
    const redisOk = await Promise.race([
      this.redis.ping().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(resolve, 500, false).unref()),
    ]);
    void reply.code(200).send({ ready: true, redis: redisOk, routes: this.routes.status() });
  }
}
