import { Logger } from '@nestjs/common';
import { type EventEmitter } from 'node:events';

export interface OutageLogger {
  warn(message: string): void;
  log(message: string): void;
}

/** What OutageLog watches: an ioredis Redis or Cluster. */
export interface WatchedConnection extends EventEmitter {
  disconnect(reconnect?: boolean): void;
}

/**
 * One process's view of Redis's availability, told once per outage: a warning when the first of
 * its connections fails, a line when the last one that failed is ready again. ioredis emits an
 * error for every reconnect attempt (every 50 ms to 2 s, per connection); logging each, or leaving
 * one unheard (ioredis then prints "[ioredis] Unhandled error event" and a stack), buried the logs
 * of every app while Redis was down.
 */
export class OutageLog {
  private readonly down = new Set<EventEmitter>();
  private since = 0;
  /** Whether a connection came back during this outage: then Redis is back once none is down. */
  private someRecovered = false;

  constructor(private readonly logger: OutageLogger = new Logger('Redis')) {}

  /** Listens to `connection`'s errors (so none is unhandled) and readiness. */
  watch(connection: WatchedConnection, name: string): void {
    connection.on('error', (err: Error) => this.failed(connection, name, err));
    connection.on('ready', () => this.recovered(connection));
    // A connection closed for good (shutdown) no longer counts as down.
    connection.on('end', () => this.recovered(connection, false));
    // ioredis emits nothing more, not even 'end', for a connection closed while it waits to
    // reconnect (the router's samples reader, restarted during an outage): seen closing here, it
    // would otherwise hold the outage open for good.
    const disconnect = connection.disconnect.bind(connection);
    connection.disconnect = (reconnect = false) => {
      if (!reconnect) this.recovered(connection, false);
      disconnect(reconnect);
    };
  }

  get reachable(): boolean {
    return this.down.size === 0;
  }

  private failed(connection: EventEmitter, name: string, err: Error): void {
    if (this.down.has(connection)) return;
    this.down.add(connection);
    if (this.down.size > 1) return;
    this.since = Date.now();
    this.someRecovered = false;
    this.logger.warn(`unreachable (${name}: ${err.message}); retrying, logged again once it is back`);
  }

  private recovered(connection: EventEmitter, ready = true): void {
    if (!this.down.delete(connection)) return;
    this.someRecovered ||= ready;
    // The last one down may close for good (BullMQ replaces connections) after the others came
    // back: Redis is back all the same. If none came back, it closed at shutdown: nothing to say.
    if (this.down.size > 0 || !this.someRecovered) return;
    this.logger.log(`reachable again after ${Date.now() - this.since} ms`);
  }
}

/**
 * A recurring step that needs Redis (a cache read per request, a publish per cycle), told once per
 * run of failures: a warning at the first, a line at the first success after it. Logged at every
 * failure it repeated the outage OutageLog already reports, once per request or cycle.
 */
export class FailureRun {
  private failing = false;

  constructor(
    private readonly logger: OutageLogger,
    private readonly what: string,
  ) {}

  failed(err: Error): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`${this.what} failed (${err.message}); logged again once it works`);
  }

  succeeded(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log(`${this.what} works again`);
  }
}

/**
 * A failure to reach Redis (a socket error, or a command given up on while disconnected), which
 * OutageLog already reports once per outage: relayers of client errors (BullMQ's 'error') skip it.
 */
export function isConnectionError(err: Error): boolean {
  return (
    (err as NodeJS.ErrnoException).syscall !== undefined ||
    err.name === 'MaxRetriesPerRequestError' ||
    err.message.startsWith('Connection is closed')
  );
}

/** The one every connection made by createRedis and duplicateRedis reports to. */
export const redisOutages = new OutageLog();
