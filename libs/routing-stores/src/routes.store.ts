import { duplicateRedis, type RedisClient, type RedisKeys } from '#libs/redis';
import { parseRouteTable, type RouteTable } from '#libs/routing';

export interface WarnLogger {
  warn(message: string): void;
}

/** Stores the table for late readers and announces it to live ones, atomically (one MULTI). */
export async function publishRouteTable(
  redis: RedisClient,
  keys: RedisKeys,
  table: RouteTable,
): Promise<void> {
  const json = JSON.stringify(table);
  const replies = await redis.multi().set(keys.routes, json).publish(keys.routesChannel, json).exec();
  if (!replies) throw new Error('publishRouteTable: transaction aborted');
  const failed = replies.find(([err]) => err !== null);
  if (failed) throw failed[0] as Error;
}

export async function readRouteTable(redis: RedisClient, keys: RedisKeys): Promise<string | null> {
  return redis.get(keys.routes);
}

/** Connection names allow no spaces; the prefix is operator input. */
function connectionName(prefix: string): string {
  return `${prefix}:routes-watcher`.replace(/[^\w:.-]/g, '_');
}

/**
 * An edge's in-memory copy of the router's table: read once at start, then pushed by pub/sub on a
 * dedicated subscriber connection. Never goes back to an older version. After the subscriber
 * reconnects it re-reads the key, so a message published while it was away cannot leave it stale.
 */
export class RouteTableWatcher {
  private sub: RedisClient | null = null;
  private table: RouteTable | null = null;
  private updatedAt = 0;
  private readonly listeners = new Set<(table: RouteTable) => void>();
  private stopped = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger: WarnLogger = console,
  ) {}

  /**
   * Subscribes first, then reads the key, so no table published in between is missed. Resolves
   * once that is done, or at the subscriber's first connection error: an edge starts while Redis
   * is down (routing on config), and the subscription and the read complete once it is back.
   */
  async start(): Promise<void> {
    if (this.sub) return;
    this.stopped = false;
    // No retry limit: the SUBSCRIBE waits out an outage (stop() does not wait on it).
    const sub = duplicateRedis(this.redis, connectionName(this.keys.prefix), {
      autoResubscribe: true,
      maxRetriesPerRequest: null,
    });
    this.sub = sub;
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.keys.routesChannel) this.accept(message, 'pub/sub');
    });
    // Connection errors are logged once per outage by the client (duplicateRedis).
    const unreachable = new Promise<void>((resolve) => sub.once('error', () => resolve()));
    await Promise.race([this.subscribe(sub), unreachable]);
  }

  private async subscribe(sub: RedisClient): Promise<void> {
    try {
      await sub.subscribe(this.keys.routesChannel);
    } catch (err) {
      if (!this.stopped) this.logger.warn(`route table subscription failed: ${(err as Error).message}`);
      return;
    }
    // A first read that fails (a bounded client still connecting to a slow Redis) must not stop the
    // process from starting: the table comes with the next push, the router republishes it anyway.
    await this.refresh().catch((err: Error) =>
      this.logger.warn(`route table not read at start: ${err.message}`),
    );
    // Registered after the first subscribe: every later 'ready' is a reconnect.
    if (!this.stopped) sub.on('ready', () => void this.afterReconnect(sub));
  }

  current(): RouteTable | null {
    return this.table;
  }

  /**
   * ms epoch when this copy was last confirmed newest: a newer table, or the same version again
   * (the router republishes periodically, so this also tells that a router is alive). 0 before any.
   */
  lastUpdate(): number {
    return this.updatedAt;
  }

  /** Called with each newer table; returns a function that removes the listener. */
  onChange(cb: (table: RouteTable) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** Re-reads the key; the table is kept only if it is not older than the one held. */
  async refresh(): Promise<void> {
    const text = await readRouteTable(this.redis, this.keys);
    if (text !== null && !this.stopped) this.accept(text, 'key');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listeners.clear();
    const sub = this.sub;
    this.sub = null;
    if (!sub) return;
    sub.removeAllListeners('ready');
    // QUIT would wait in the offline queue for a Redis that is down; a subscriber has nothing to flush.
    sub.disconnect();
  }

  private async afterReconnect(sub: RedisClient): Promise<void> {
    try {
      // The resubscribe is in flight on `sub`; a PING on the same connection returns after it,
      // so the re-read below cannot fall in a gap where neither path sees a new table.
      await sub.ping();
      await this.refresh();
    } catch (err) {
      this.logger.warn(`route table re-read after reconnect failed: ${(err as Error).message}`);
    }
  }

  private accept(text: string, source: 'pub/sub' | 'key'): void {
    if (this.stopped) return;
    const parsed = parseRouteTable(text);
    if ('error' in parsed) {
      this.logger.warn(`ignoring route table from ${source}: ${parsed.error}`);
      return;
    }
    const next = parsed.table;
    const held = this.table;
    if (held && next.version < held.version) return;
    this.updatedAt = Date.now();
    if (held && next.version === held.version) return;
    this.table = next;
    for (const cb of this.listeners) {
      try {
        cb(next);
      } catch (err) {
        this.logger.warn(`route table listener failed: ${(err as Error).message}`);
      }
    }
  }
}
