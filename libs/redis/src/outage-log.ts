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
 * A recurring step that fails while a dependency is down (a cache read per request, a publish per
 * cycle, a job attempt per retry), told once per run of failures: a warning at the first, a line
 * at the first success after it with how many failed and for how long. Logged at every failure it
 * repeated the outage OutageLog already reports, once per request or cycle (the edge's route
 * samples: 41 lines over three 3 s outages; the worker's job retries: 4,740 in one 30 s one).
 */
export class FailureRun {
  private failures = 0;
  private since = 0;

  constructor(
    private readonly logger: OutageLogger,
    private readonly what: string,
  ) {}

  get failing(): boolean {
    return this.failures > 0;
  }

  failed(err: Error): void {
    if (this.failures++ > 0) return;
    this.since = Date.now();
    this.logger.warn(`${this.what} failed (${err.message}); logged again once it works`);
  }

  succeeded(): void {
    if (this.failures === 0) return;
    const failures = this.failures;
    this.failures = 0;
    this.logger.log(
      `${this.what} works again after ${failures} failure${failures === 1 ? '' : 's'} in ${Date.now() - this.since} ms`,
    );
  }
}

/**
 * ioredis's words for a command given up on without an answer: refused while disconnected by a
 * client without an offline queue (`failFastMs`, `failFastWhileDown`; a Cluster's while it is not
 * ready), or past `commandTimeoutMs` (a Redis that accepts and does not answer).
 */
const GIVEN_UP = /^(Connection is closed|Stream isn't writeable|Cluster isn't ready|Command timed out)/;

/**
 * A failure to reach Redis (a socket error, or a command given up on while disconnected or
 * unanswered), which OutageLog already reports once per outage: relayers of client errors
 * (BullMQ's 'error') skip it, and the console answers it 503 with retry-after.
 */
export function isConnectionError(err: Error): boolean {
  return (
    (err as NodeJS.ErrnoException).syscall !== undefined ||
    err.name === 'MaxRetriesPerRequestError' ||
    GIVEN_UP.test(err.message)
  );
}

/** The one every connection made by createRedis and duplicateRedis reports to. */
export const redisOutages = new OutageLog();
