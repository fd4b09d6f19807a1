import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GracefulDrain } from '#libs/runtime';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { type GatewayConfig } from '#libs/config';
import { type RedisClient } from '#libs/redis';
import { CONFIG, REDIS } from '../tokens.js';
import { readiness } from './readiness.js';

/** Far above a healthy Redis's latency, below a probe's usual 1 s timeout. */
const PING_WAIT_MS = 500;

@Controller()
export class HealthController {
  constructor(
    private readonly routes: RoutesService,
    private readonly logs: LogShipper,
    private readonly keys: KeyResolver,
    private readonly samples: SampleShipper,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly drain: GracefulDrain,
  ) {}

  /**
   * Liveness, plus what an operator needs to judge this edge: route freshness (`stale` once the
   * router has been silent for `routing.stale_after_ms`: the edge routes on its last view and its
   * local breaker), the local breaker, and the log and sample backlogs. `pid` says which process
   * answered: with EDGE_PROCESSES above 1 each worker keeps its own backlogs and caches.
   */
  @Get('/healthz')
  health(): object {
    return {
      status: 'ok',
      pid: process.pid,
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
   * Readiness fails first while this edge shuts down (so load balancers stop sending while
   * in-flight requests finish); otherwise it says what the edge serves and from where, and fails
   * only when it cannot serve a model request (readiness.ts). Redis is not required: failing
   * readiness on a shared dependency would pull every edge out of service at once.
   */
  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.drain.draining) return void reply.code(503).send({ ready: false, draining: true });
    const state = readiness({
      redis: await this.redisAnswers(),
      logsQueued: this.logs.status.redisReachable,
      routes: this.routes.status(),
      whenUnavailable: this.config.quota.when_unavailable,
    });
    void reply.code(state.ready ? 200 : 503).send(state);
  }

  /** At once when the client knows it is down; bounded, since a probe has its own timeout. */
  private async redisAnswers(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    return Promise.race([
      this.redis.ping().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(resolve, PING_WAIT_MS, false).unref()),
    ]);
  }
}
