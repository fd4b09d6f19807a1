import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Queue } from 'bullmq';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { isConnectionError, type RedisClient, type RedisKeys } from '#libs/redis';
import { ATTR, telemetry } from '#libs/telemetry';
import { BULL_REDIS, REDIS_KEYS } from '../tokens.js';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
const QUEUE_ATTRS = { [ATTR.queue]: REQUEST_LOG_QUEUE } as const;
const STATE_ATTRS = Object.fromEntries(STATES.map((s) => [s, { ...QUEUE_ATTRS, [ATTR.jobState]: s }]));

/**
 * Queue depth by state and lag (age of the oldest waiting job), read from BullMQ when metrics are
 * collected (a scrape, an OTLP push): a few Redis calls per collection, none per job.
 */
@Injectable()
export class QueueGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(QueueGauges.name);
  private readonly queue: Queue;
  private stops: Array<() => void> = [];

  constructor(@Inject(BULL_REDIS) connection: RedisClient, @Inject(REDIS_KEYS) keys: RedisKeys) {
    this.queue = new Queue(REQUEST_LOG_QUEUE, { connection, prefix: keys.bullPrefix });
    // Unheard, BullMQ prints each of its connection's errors (one per reconnect attempt) to
    // stderr; #libs/redis logs an outage once.
    this.queue.on('error', (err) => {
      if (!isConnectionError(err)) this.logger.warn(`queue gauges: ${err.message}`);
    });
  }

  onApplicationBootstrap(): void {
    const metrics = telemetry().metrics;
    if (!metrics.enabled) return;
    this.stops = [
      metrics.observe('queueDepth', async (observe) => {
        const counts = await this.queue.getJobCounts(...STATES);
        for (const s of STATES) observe(counts[s] ?? 0, STATE_ATTRS[s]);
      }),
      metrics.observe('queueLag', async (observe) => {
        observe(await this.lagSeconds(), QUEUE_ATTRS);
      }),
    ];
  }

  /** Age of the oldest job still waiting; 0 when none waits. */
  async lagSeconds(now = Date.now()): Promise<number> {
    // BullMQ lists waiting jobs oldest first.
    const [oldest] = await this.queue.getWaiting(0, 0);
    return oldest ? Math.max(0, now - oldest.timestamp) / 1000 : 0;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stops.forEach((stop) => stop());
    // The connection is the module's; BullMQ leaves a handed-in connection open.
    await this.queue.close();
  }
}
