import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { type GatewayConfig } from '#libs/config';
import { FailureRun, type RedisClient, type RedisKeys } from '#libs/redis';
import { type RouteSample } from '#libs/routing';
import { appendSamples } from '#libs/routing-stores';
import { CONFIG, REDIS, REDIS_KEYS } from '../tokens.js';

/** Samples kept while Redis is unreachable; past it the oldest are dropped (samples are best-effort). */
const MAX_BUFFERED = 10_000;

/**
 * Buffers passive health samples (one per upstream attempt) and ships them as one stream entry per
 * `routing.sample_flush_interval_ms`. The hot path pays an array push. Unlike logs, a failed flush
 * is dropped, with one warning per run of failures (`dropped` in /healthz counts them): the router
 * only needs a recent picture, not every sample.
 */
@Injectable()
export class SampleShipper implements BeforeApplicationShutdown {
  private readonly logger = new Logger(SampleShipper.name);
  private readonly shipping = new FailureRun(this.logger, 'shipping route samples');
  private buffer: RouteSample[] = [];
  private timer: NodeJS.Timeout | null = null;
  shipped = 0;
  dropped = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  push(sample: RouteSample): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push(sample);
    this.timer ??= setTimeout(() => void this.flush(), this.config.routing.sample_flush_interval_ms);
  }

  get pending(): number {
    return this.buffer.length;
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      await appendSamples(this.redis, this.keys, batch);
      this.shipped += batch.length;
      this.shipping.succeeded();
    } catch (err) {
      this.dropped += batch.length;
      this.shipping.failed(err as Error);
    }
  }

  /** Before the shared Redis client is closed (in onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
