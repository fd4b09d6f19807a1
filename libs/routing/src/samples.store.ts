import { type Redis } from 'ioredis';
import { type RedisKeys } from '#libs/redis';
import { type RouteSample } from './route-sample.js';

/** The stream keeps about this many entries (each a batch): old ones are trimmed, never read twice. */
const STREAM_MAX_ENTRIES = 10_000;

/** Edge side: one XADD per flush, whatever the number of samples. */
export async function appendSamples(
  redis: Redis,
  keys: RedisKeys,
  samples: readonly RouteSample[],
): Promise<void> {
  if (samples.length === 0) return;
  await redis.xadd(keys.samplesStream, 'MAXLEN', '~', STREAM_MAX_ENTRIES, '*', 'd', JSON.stringify(samples));
}

export interface SampleBatch {
  /** Stream id of the last entry read: pass it back to continue after it. */
  readonly lastId: string;
  readonly samples: RouteSample[];
}

/**
 * Router side: samples after `afterId` ('$' = only new ones), waiting up to `blockMs`. Needs a
 * connection of its own, since a blocking read holds it. Malformed entries are skipped.
 */
export async function readSamples(
  redis: Redis,
  keys: RedisKeys,
  afterId: string,
  blockMs: number,
): Promise<SampleBatch> {
  const reply = await redis.xread('COUNT', 1000, 'BLOCK', blockMs, 'STREAMS', keys.samplesStream, afterId);
  const entries = reply?.[0]?.[1] ?? [];
  const samples: RouteSample[] = [];
  let lastId = afterId;
  for (const [id, fields] of entries) {
    lastId = id;
    const data = fields[1];
    if (fields[0] !== 'd' || data === undefined) continue;
    try {
      const parsed: unknown = JSON.parse(data);
      if (Array.isArray(parsed)) samples.push(...(parsed as RouteSample[]));
    } catch {
      // A malformed entry costs its own samples, nothing else.
    }
  }
  return { lastId, samples };
}
