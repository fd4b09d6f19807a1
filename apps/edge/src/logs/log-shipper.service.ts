import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type Env, type GatewayConfig } from '#libs/config';
import { MAX_LOGS_PER_JOB, type RequestLogJob } from '#libs/queue';
import { type RedisKeys } from '#libs/redis';
import { StreamMarkers } from '../streams/stream-markers.store.js';
import { CONFIG, ENV, REDIS_KEYS } from '../tokens.js';
import { LogQueue } from './log-queue.js';
import { LogSpool } from './log-spool.js';

/** While Redis is unreachable, a flush (or replay) is retried this often. */
const RETRY_DELAY_MS = 500;
/** Spool files not replayable yet (another process may still write them) are looked at again this often. */
const REPLAY_RECHECK_MS = 5_000;
/** A replay sends a spool file in steps of this many logs (ten jobs, one MULTI each). */
const REPLAY_STEP = 10 * MAX_LOGS_PER_JOB;
export interface LogShipperStatus {
  readonly pending: number;
  readonly shipped: number;
  readonly spooled: number;
  readonly replayed: number;
  readonly redisReachable: boolean;
}

/**
 * Buffers request logs and ships each flush as one BullMQ job (several past MAX_LOGS_PER_JOB), so
 * the hot path pays an array push and BullMQ's fixed cost per job is paid per flush.
 *
 * Redis unreachable: nothing waits on it. A send fails at once while Redis is disconnected and
 * after `edge.log_flush_timeout_ms` otherwise (LogQueue); a failed flush keeps its logs in
 * memory and is retried every 500 ms. Once `edge.log_buffer_max` logs wait, they are appended to
 * the spool (`edge.log_spool_dir`, fsynced JSON lines) and memory is freed. At shutdown whatever
 * Redis does not take within the timeout goes to the spool too, so shutdown is bounded. The spool
 * is replayed into the queue at start and whenever a flush succeeds again.
 */
@Injectable()
export class LogShipper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LogShipper.name);
  private readonly queue: LogQueue;
  private readonly spool: LogSpool;
  private buffer: RequestLogJob[] = [];
  private timer: NodeJS.Timeout | null = null;
  private replayTimer: NodeJS.Timeout | null = null;
  private spillFailedAt = 0;
  private flushing: Promise<void> | null = null;
  private replaying: Promise<void> | null = null;
  private redisFailing = false;
  private spoolPending = false;
  private closing = false;
  /** Set once the final flush ran: a log arriving later is written straight to the spool. */
  private closed = false;
  /** Logs on their way (a cut stream being counted): the final flush waits for them, bounded. */
  private readonly coming = new Set<Promise<unknown>>();
  shipped = 0;
  spooled = 0;
  replayed = 0;

  constructor(
    @Inject(ENV) env: Env,
    @Inject(REDIS_KEYS) keys: RedisKeys,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly markers: StreamMarkers,
  ) {
    this.queue = new LogQueue(env.redis, keys.bullPrefix, config.edge.log_flush_timeout_ms);
    this.spool = new LogSpool(config.edge.log_spool_dir);
  }

  onApplicationBootstrap(): void {
    if (!this.spool.hasFiles()) return;
    this.spoolPending = true;
    this.startReplay();
  }

  /**
   * A log that will be enqueued once `finishing` settles (its usage is being counted): the final
   * flush waits for it, up to `log_flush_timeout_ms`, so a request cut by the drain deadline still
   * reaches the queue rather than the spool.
   */
  expect(finishing: Promise<unknown>): void {
    this.coming.add(finishing);
    void finishing.finally(() => this.coming.delete(finishing));
  }

  enqueue(job: RequestLogJob): void {
    if (this.closed) {
      this.spill([job]);
      this.finishSpool();
      return;
    }
    this.buffer.push(job);
    if (this.redisFailing) {
      // The retry timer probes Redis; meanwhile memory is bounded by spilling to disk.
      if (this.buffer.length >= this.config.edge.log_buffer_max) this.spillBuffer();
      return;
    }
    if (this.buffer.length >= this.config.edge.log_flush_max_batch) this.flushSoon(0);
    else this.flushSoon(this.config.edge.log_flush_interval_ms);
  }

  get pending(): number {
    return this.buffer.length;
  }

  get status(): LogShipperStatus {
    return {
      pending: this.buffer.length,
      shipped: this.shipped,
      spooled: this.spooled,
      replayed: this.replayed,
      // An idle edge has no failed flush to tell it: the queue's connection does.
      redisReachable: !this.redisFailing && !this.queue.down,
    };
  }

  private flushSoon(delayMs: number): void {
    if (this.flushing || this.closing) return; // the running flush reschedules itself if more arrived
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
  }

  private retrySoon(): void {
    if (this.closing) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), RETRY_DELAY_MS);
  }

  /** Sends everything buffered; resolves when it is in Redis, or failed and was kept (or spooled). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0) {
      if (this.spoolPending) this.startReplay();
      return;
    }
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.queue
      .send(batch)
      .then(
        () => {
          this.shipped += batch.length;
          this.markers.landed(batch);
          this.markReachable();
          if (this.spoolPending) this.startReplay();
        },
        (err: Error) => {
          this.markUnreachable(err);
          this.buffer = batch.concat(this.buffer);
          if (this.buffer.length >= this.config.edge.log_buffer_max) this.spillBuffer();
          this.retrySoon();
        },
      )
      .finally(() => {
        this.flushing = null;
        if (this.buffer.length > 0 && !this.timer && !this.redisFailing)
          this.flushSoon(this.config.edge.log_flush_interval_ms);
      });
    return this.flushing;
  }

  private markUnreachable(err: Error): void {
    if (this.redisFailing) return;
    this.redisFailing = true;
    this.logger.warn(
      `log queue unreachable (${err.message}); holding up to ${this.config.edge.log_buffer_max} logs in memory, then spooling to ${this.spool.dir}`,
    );
  }

  private markReachable(): void {
    if (!this.redisFailing) return;
    this.redisFailing = false;
    this.logger.log('log queue reachable again');
  }

  private spillBuffer(): void {
    // A disk that just refused is not asked again on every request.
    if (Date.now() - this.spillFailedAt < RETRY_DELAY_MS * 10) return;
    const logs = this.buffer;
    this.buffer = [];
    this.spill(logs);
  }

  /** Logs to disk; if even the disk refuses, they stay in memory (never dropped) and it is said loudly. */
  private spill(logs: RequestLogJob[]): void {
    try {
      this.spool.append(logs);
      this.spooled += logs.length;
      this.markers.landed(logs);
      this.spoolPending = true;
    } catch (err) {
      this.spillFailedAt = Date.now();
      this.logger.error(`spool write failed, ${logs.length} logs kept in memory: ${(err as Error).message}`);
      this.buffer = logs.concat(this.buffer);
    }
  }

  /** Marks this process's spool file finished, so the next edge replays it without waiting. */
  private finishSpool(): void {
    try {
      this.spool.finish();
    } catch (err) {
      this.logger.warn(
        `spool file not marked finished (replayed later all the same): ${(err as Error).message}`,
      );
    }
  }

  private startReplay(): void {
    this.replaying ??= this.replay()
      .catch((err: Error) => {
        this.markUnreachable(err);
        this.retrySoon();
      })
      .finally(() => {
        this.replaying = null;
      });
  }

  /** Sends every spool file, oldest first, deleting each once all its logs are in Redis. */
  private async replay(): Promise<void> {
    this.spoolPending = false;
    for (const name of this.spool.seal()) {
      if (this.closing) break;
      const claimed = this.spool.claim(name);
      if (claimed === null) continue; // another edge sharing the directory took it
      const file = await this.spool.read(claimed);
      if (file.unreadable > 0)
        this.logger.error(`${name}: ${file.unreadable} unreadable lines (cut by a crash mid-write) skipped`);
      for (let i = 0; i < file.logs.length; i += REPLAY_STEP) {
        try {
          await this.queue.send(file.logs.slice(i, i + REPLAY_STEP));
          // With every log spooled there is no flush to say so: the replay is the probe that got through.
          this.markReachable();
        } catch (err) {
          // The file stays; its logs already sent are sent again next time, and ignored by the worker.
          this.spoolPending = true;
          throw err;
        }
      }
      await this.spool.remove(claimed);
      this.replayed += file.logs.length;
      this.logger.log(`replayed ${file.logs.length} spooled logs from ${name}`);
    }
    // Files another process was still writing (or claims not yet stale): look again later.
    if (this.spool.hasFiles()) this.replayLater();
  }

  private replayLater(): void {
    if (this.closing || this.replayTimer) return;
    this.replayTimer = setTimeout(() => {
      this.replayTimer = null;
      this.spoolPending = true;
      this.startReplay();
    }, REPLAY_RECHECK_MS);
    this.replayTimer.unref();
  }

  /**
   * The final flush, bounded: what Redis does not take within `log_flush_timeout_ms` is appended
   * to the spool. Logs enqueued after this point (a request cut off by the drain deadline that
   * finishes its bookkeeping late) go straight to the spool.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.replayTimer) clearTimeout(this.replayTimer);
    if (this.coming.size > 0) await settledWithin([...this.coming], this.config.edge.log_flush_timeout_ms);
    // Redis known down: what it cannot take is spooled now. A send would wait for the next
    // reconnect, up to log_flush_timeout_ms (the stop took 2.3-2.8 s instead of 0.01 s).
    if (this.redisFailing || this.queue.down) this.queue.stopWaiting();
    await this.flushing;
    await this.replaying;
    const rest = this.buffer;
    this.buffer = [];
    if (rest.length > 0) {
      try {
        await this.queue.send(rest);
        this.shipped += rest.length;
        this.markers.landed(rest);
      } catch (err) {
        this.logger.warn(`${rest.length} logs spooled at shutdown: ${(err as Error).message}`);
        this.spill(rest);
      }
    }
    this.closed = true;
    this.finishSpool();
    // Logs finishing later go to the spool with their markers left: the worker's estimate and the
    // replayed log then meet on the request id (docs/quota.md).
    await Promise.all([this.queue.close(), this.markers.close()]);
  }
}

/** Waits for every promise to settle, or for `ms`, whichever comes first. */
async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(promises), timeout]);
  clearTimeout(timer);
}
