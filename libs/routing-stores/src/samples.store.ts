import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type RouteSample } from '#libs/routing';

/**
 * The stream keeps about this much time of entries; older ones are trimmed (the router reads new
 * entries as they come, and only new ones after a restart, so an old entry is never read). A window
 * in time rather than a count: an entry holds one edge flush, whose size grows with traffic, and a
 * 10,000-entry cap let Redis grow by ~0.8 MB/s for 40 minutes at 3,000 requests/s (npm run soak).
 * It is computed from the edge's clock against Redis's entry ids: a minute is far above clock skew.
 */
const STREAM_WINDOW_MS = 60_000;

/** Edge side: one XADD per flush, whatever the number of samples. */
export async function appendSamples(
  redis: RedisClient,
  keys: RedisKeys,
  samples: readonly RouteSample[],
): Promise<void> {
  if (samples.length === 0) return;
  const minId = String(Date.now() - STREAM_WINDOW_MS);
  await redis.xadd(keys.samplesStream, 'MINID', '~', minId, '*', 'd', JSON.stringify(samples));
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
  redis: RedisClient,
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
