import { Queue } from 'bullmq';
import pg from 'pg';
import { databaseNameOf, maintenanceUrlOf } from '#libs/db';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { createRedis, deleteMatching, redisKeys } from '#libs/redis';
import { type BenchSettings } from './settings.js';

/**
 * The bench's own state: its database and its Redis prefix (settings refuse names without
 * "bench"). Nothing else is ever dropped.
 */

/**
 * Drops the bench's database and Redis keys. With `warn`, a step that fails is reported and the
 * next still runs (teardown); without it, a failure throws (set-up must start clean).
 */
export async function dropBenchData(
  settings: BenchSettings,
  warn?: (message: string) => void,
): Promise<void> {
  const steps = [
    ['drop the database', dropBenchDatabase],
    ['delete Redis keys', dropBenchRedisKeys],
  ] as const;
  for (const [what, step] of steps) {
    if (warn) await step(settings).catch((e: Error) => warn(`could not ${what}: ${e.message}`));
    else await step(settings);
  }
}

async function dropBenchDatabase(settings: BenchSettings): Promise<void> {
  const name = databaseNameOf(settings.databaseUrl);
  const client = new pg.Client({ connectionString: maintenanceUrlOf(settings.databaseUrl) });
  await client.connect();
  try {
    // FORCE: a killed worker may leave a backend behind for a moment.
    await client.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  } finally {
    await client.end();
  }
}

/** Deletes the prefix's keys, BullMQ's hash-tagged `{prefix}:` ones included. */
async function dropBenchRedisKeys(settings: BenchSettings): Promise<void> {
  const redis = createRedis(settings.redisUrl, { name: 'bench-cleanup' });
  try {
    await deleteMatching(redis, redisKeys(settings.redisPrefix).allKeys, 1000);
  } finally {
    redis.disconnect();
  }
}

/** Rows the worker wrote to request_logs: the check that logging really ran during the bench. */
export async function countRequestLogRows(settings: BenchSettings): Promise<number> {
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>('select count(*) as n from request_logs');
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export interface BacklogCounts {
  /** Jobs the worker has not finished: waiting, active, delayed. */
  readonly pending: number;
  readonly failed: number;
}

/** The request-log queue as the worker sees it, read straight from BullMQ. */
export class LogQueueBacklog {
  private readonly connection: ReturnType<typeof createRedis>;
  private readonly queue: Queue;

  constructor(settings: BenchSettings) {
    this.connection = createRedis(settings.redisUrl, { forBullmq: true, name: 'bench-backlog' });
    this.queue = new Queue(REQUEST_LOG_QUEUE, {
      connection: this.connection,
      prefix: redisKeys(settings.redisPrefix).bullPrefix,
    });
    this.queue.on('error', () => undefined); // a Redis blip shows up as a failed count() instead
  }

  async counts(): Promise<BacklogCounts> {
    const c = await this.queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed');
    const pending = (c.wait ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
    return { pending, failed: c.failed ?? 0 };
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}
