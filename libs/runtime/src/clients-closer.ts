import { type FactoryProvider, type OnApplicationShutdown } from '@nestjs/common';

/** What an app opens once and shares: a Postgres pool (`destroy`) or a Redis client (`quit`). */
type SharedClient =
  { destroy(): Promise<void> } | { ping(): Promise<unknown>; quit(): Promise<unknown>; disconnect(): void };

/** How long QUIT may wait on a Redis that is gone before the connection is dropped. */
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
    useFactory: (...clients: SharedClient[]): OnApplicationShutdown => ({
      async onApplicationShutdown() {
        await Promise.all(clients.map(async (c) => ('destroy' in c ? c.destroy() : quit(c))));
      },
    }),
  };
}

async function quit(redis: {
  ping(): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
}): Promise<void> {
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
