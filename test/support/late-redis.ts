import { connect, createServer, type Socket } from 'node:net';
import { TEST_REDIS_URL } from './redis.js';

export interface LateRedis {
  /** TEST_REDIS_URL with the proxy's port. */
  readonly url: string;
  /** Connections opened from now on are held this long before any byte passes (0 at start). */
  holdNewConnections(ms: number): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy to the test Redis that can hold each new connection before passing bytes either way:
 * a Redis that answers a new connection's first commands late, as on a loaded host.
 */
export async function startLateRedis(): Promise<LateRedis> {
  const target = new URL(TEST_REDIS_URL);
  const sockets = new Set<Socket>();
  let holdMs = 0;
  const track = (s: Socket): Socket => {
    sockets.add(s);
    return s.on('error', () => undefined).on('close', () => sockets.delete(s));
  };
  const server = createServer((client) => {
    track(client);
    const timer = setTimeout(() => {
      const upstream = track(connect(Number(target.port || 6379), target.hostname));
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    }, holdMs);
    client.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(TEST_REDIS_URL);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    holdNewConnections(ms) {
      holdMs = ms;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
