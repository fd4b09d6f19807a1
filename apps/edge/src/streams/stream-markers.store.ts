import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type Env, type GatewayConfig } from '#libs/config';
import { type RequestLogJob, type StreamMarker } from '#libs/queue';
import { createRedis, type RedisClient, type RedisKeys } from '#libs/redis';
import { CONFIG, ENV, REDIS_KEYS } from '../tokens.js';

/** Far above a healthy Redis's latency; a marker that cannot be written in time is given up. */
const COMMAND_TIMEOUT_MS = 500;
/** At most one warning per this long: a Redis outage must not flood the log. */
const WARN_EVERY_MS = 10_000;

/**
 * This edge's start markers of streams and its heartbeat (docs/quota.md, "Streams cut by an edge
 * crash"). Nothing here waits for Redis: the streams started in one event-loop turn are recorded
 * by one HSET written to the socket at the end of that turn, and they wait only for that write;
 * clears of a whole log flush go in one HDEL; the heartbeat is one key per instance on a timer.
 * Its own connection, so the clears of the log shipper's final flush still reach Redis after the
 * shared client has quit.
 */
@Injectable()
export class StreamMarkers implements OnApplicationBootstrap {
  private readonly logger = new Logger(StreamMarkers.name);
  /** One edge process: a restart is a new instance, so the old one's markers are swept. */
  readonly instance = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly redis: RedisClient;
  private readonly streamsKey: string;
  private readonly ttlMs: number;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Markers of streams started in this turn, and the promise their write resolves. */
  private opening: StreamMarker[] = [];
  private written: Promise<void> | null = null;
  private clears: string[] = [];
  private closed = false;
  private lastWarnAt = 0;

  constructor(
    @Inject(ENV) env: Env,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.redis = createRedis(env.redis, { name: 'edge-streams', commandTimeoutMs: COMMAND_TIMEOUT_MS });
    this.redis.on('error', () => undefined); // failed commands say what matters, throttled
    this.streamsKey = keys.edgeStreams(this.instance);
    this.ttlMs = config.cut_streams.heartbeat_ttl_ms;
  }

  onApplicationBootstrap(): void {
    this.beat();
    this.heartbeat = setInterval(() => this.beat(), Math.floor(this.ttlMs / 3));
    this.heartbeat.unref();
  }

  /**
   * Records a stream before its first byte. The promise resolves once the marker was written to
   * the Redis socket, not when Redis answered: the client waits for no round trip. While Redis is
   * unreachable the marker is queued, then dropped after the command timeout: such a stream is not
   * covered.
   */
  open(marker: StreamMarker): Promise<void> {
    this.opening.push(marker);
    this.written ??= new Promise((resolve) =>
      setImmediate(() => {
        this.writeOpened();
        resolve();
      }),
    );
    return this.written;
  }

  /**
   * One HSET for the turn's markers. An explicit pipeline writes to the socket before `exec`
   * returns (into the turn's corked batch at worst, libs/redis write-coalescing.ts); a Cluster's
   * auto-pipelining would hold the command while an earlier pipeline awaits its replies, and the
   * first bytes could then leave before their marker.
   */
  private writeOpened(): void {
    const markers = this.opening;
    this.opening = [];
    this.written = null;
    const fields = Object.fromEntries(markers.map((m) => [m.requestId, JSON.stringify(m)]));
    this.redis
      .pipeline()
      .hset(this.streamsKey, fields)
      .exec()
      .then((results) => {
        const err = results?.[0]?.[0];
        if (err) throw err;
      })
      .catch((err: Error) => this.warn(`${markers.length} stream markers not recorded: ${err.message}`));
  }

  /** The logs are in the queue (or spooled): their streams' markers go, one HDEL per turn. */
  landed(logs: readonly RequestLogJob[]): void {
    if (this.closed) return;
    const before = this.clears.length;
    for (const log of logs) if (log.stream) this.clears.push(log.requestId);
    if (before === 0 && this.clears.length > 0) setImmediate(() => void this.flushClears());
  }

  /** At shutdown, after the last logs landed: their clears go out, then the connection closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.flushClears();
    // QUIT waits its turn behind the clears; a connection that never came up has nothing to say.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => undefined);
    this.redis.disconnect();
  }

  private async flushClears(): Promise<void> {
    const ids = this.clears;
    this.clears = [];
    if (ids.length === 0) return;
    // A clear that fails leaves a marker the worker charges once it is stale; the log already
    // landed, so whichever of the two reaches Postgres first is the only row (docs/quota.md).
    await this.redis
      .hdel(this.streamsKey, ...ids)
      .catch((err: Error) => this.warn(`${ids.length} stream markers not cleared: ${err.message}`));
  }

  private beat(): void {
    const now = Date.now();
    Promise.all([
      this.redis.set(this.keys.edgeAlive(this.instance), String(now), 'PX', this.ttlMs),
      this.redis.zadd(this.keys.edges, now, this.instance),
    ]).catch((err: Error) => this.warn(`edge heartbeat not recorded: ${err.message}`));
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.logger.warn(message);
  }
}
