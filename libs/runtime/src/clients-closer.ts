import { type FactoryProvider, type OnApplicationShutdown } from '@nestjs/common';

/** The part of an ioredis client (one server or a Cluster) the closer uses. */
interface RedisLike {
  readonly status: string;
  ping(): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: 'error' | 'close' | 'ready', listener: () => void): unknown;
}

/** What an app opens once and shares: a Postgres pool (`destroy`) or a Redis client (`quit`). */
type SharedClient = { destroy(): Promise<void> } | RedisLike;

/** How long QUIT may wait on a Redis that stops answering while it closes before the connection is dropped. */
const QUIT_WAIT_MS = 1_000;

/**
 * Closes the clients behind `tokens` at application shutdown. Nest runs that hook after every
 * module's onModuleDestroy, so nothing still needs them: the queue worker has finished its batch,
 * the router has released its lease, the edge has drained its requests. Nest starts a module's
 * onApplicationShutdown hooks together (those at one dependency level), so the commands the
 * others issue (the edge's last settles) must reach Redis before QUIT does: see `quit`.
 */
export function clientsCloser(...tokens: symbol[]): FactoryProvider<OnApplicationShutdown> {
  return {
    provide: Symbol('ClientsCloser'),
    inject: tokens,
    useFactory: (...clients: SharedClient[]): OnApplicationShutdown => {
      const closers = clients.map((c) => ('destroy' in c ? () => c.destroy() : redisCloser(c)));
      return {
        async onApplicationShutdown() {
          await Promise.all(closers.map((close) => close()));
        },
      };
    },
  };
}

/**
 * How a Redis client is closed, watching its connection from the app's start: one known down (it
 * failed or closed since it was last ready) is dropped at once. Nothing can be flushed over it,
 * and a PING would wait in its offline queue for a reconnect: for good on a BullMQ connection (so
 * QUIT_WAIT_MS, 1 s, on every stop of the worker while Redis is down), until the third failed
 * reconnect on the edge's (up to 0.5 s). Commands still queued are rejected, as at the wait's end.
 * A first connect still in progress is not known down: its Redis is usually about to answer.
 */
function redisCloser(redis: RedisLike): () => Promise<void> {
  let lost = false;
  redis.on('error', () => (lost = true));
  redis.on('close', () => (lost = true));
  redis.on('ready', () => (lost = false));
  return async () => {
    if (lost && redis.status !== 'ready') return redis.disconnect();
    await quit(redis);
  };
}

async function quit(redis: RedisLike): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIT_WAIT_MS)));
  // QUIT bypasses a Cluster's auto-pipelining and is written at once, ahead of commands still
  // waiting for their pipeline's turn. A PING waits its turn with them (on one server, it follows
  // them on the socket): once it is answered, so are they.
  const said = redis
    .ping()
    .then(() => redis.quit())
    .catch(() => undefined);
  await Promise.race([said, gone]);
  clearTimeout(timer);
  redis.disconnect();
}
