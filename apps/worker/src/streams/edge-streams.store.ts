import { Inject, Injectable } from '@nestjs/common';
import { parseStreamMarker, type StreamMarker } from '#libs/queue';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/** Markers read per HSCAN step: one step's charges are one Postgres transaction. */
const SCAN_COUNT = 500;

export interface EdgeInstance {
  readonly instance: string;
  /** When it last heartbeated (ms). */
  readonly lastSeenMs: number;
}

export interface MarkerPage {
  readonly markers: StreamMarker[];
  /** Fields whose value is not a marker (never written by an edge of this version). */
  readonly unreadable: string[];
}

/** The worker's side of the edges' stream markers and heartbeats (docs/quota.md). */
@Injectable()
export class EdgeStreams {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  async instances(): Promise<EdgeInstance[]> {
    const flat = await this.redis.zrange(this.keys.edges, '0', '-1', 'WITHSCORES');
    const out: EdgeInstance[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      out.push({ instance: flat[i]!, lastSeenMs: Number(flat[i + 1]) });
    return out;
  }

  async alive(instance: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.edgeAlive(instance))) === 1;
  }

  /** The instance's markers, a page at a time (HSCAN: a busy edge's hash is never read in one go). */
  async *markers(instance: string): AsyncGenerator<MarkerPage> {
    const key = this.keys.edgeStreams(instance);
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(key, cursor, 'COUNT', SCAN_COUNT);
      cursor = next;
      const page: MarkerPage = { markers: [], unreadable: [] };
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const marker = parseStreamMarker(flat[i + 1]!);
        if (marker) page.markers.push(marker);
        else page.unreadable.push(flat[i]!);
      }
      yield page;
    } while (cursor !== '0');
  }

  async forget(instance: string, requestIds: readonly string[]): Promise<void> {
    if (requestIds.length > 0) await this.redis.hdel(this.keys.edgeStreams(instance), ...requestIds);
  }

  /**
   * Takes a dead instance off the list once nothing of it is left. An edge that was only cut off
   * and comes back adds itself again with its next heartbeat.
   */
  async dropIfGone(instance: string): Promise<boolean> {
    const [open, alive] = await Promise.all([
      this.redis.hlen(this.keys.edgeStreams(instance)),
      this.alive(instance),
    ]);
    if (open > 0 || alive) return false;
    await this.redis.zrem(this.keys.edges, instance);
    return true;
  }
}
