import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys, settlesWhileReady } from '#libs/redis';
import { REDIS, REDIS_KEYS, ROUTER_OPTIONS, type RouterOptions } from '../tokens.js';

/** Extends the lease only if we still hold it: a plain PEXPIRE could extend someone else's. */
const EXTEND_IF_OWNER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const DELETE_IF_OWNER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * How long the shutdown waits, with Redis connected, for the leader's last steps (a probe cycle is
 * bounded by probe_timeout_ms, 2 s by default) and for the delete: a server that accepts and never
 * answers must not hold the stop.
 */
const LAST_STEPS_WAIT_MS = 5_000;
const DELETE_WAIT_MS = 2_000;

/** Margin kept off the lease locally, so we stop acting as leader before Redis can give it away. */
const CLOCK_MARGIN_MS = 200;

/**
 * The router leader lease: SET NX PX to take it, a compare-and-extend to keep it, a
 * compare-and-delete to hand it over on shutdown. `isLeader()` is a local judgement that errs on
 * the side of "no": the expiry is counted from before the request that set it.
 */
@Injectable()
export class LeaderLease {
  readonly token = `${hostname()}:${process.pid}:${randomUUID()}`;
  private validUntil = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(ROUTER_OPTIONS) private readonly options: RouterOptions,
  ) {}

  isLeader(): boolean {
    return Date.now() < this.validUntil;
  }

  /**
   * Takes the lease if free, or extends it if ours. Returns whether we hold it now. On a Redis
   * error it throws and the previous expiry stands, so leadership lapses on its own.
   */
  async acquireOrRenew(): Promise<boolean> {
    const sentAt = Date.now();
    const { leaseMs } = this.options;
    let held: boolean;
    if (this.isLeader()) {
      held = (await this.redis.eval(EXTEND_IF_OWNER, 1, this.keys.routerLeader, this.token, leaseMs)) === 1;
    } else {
      held = (await this.redis.set(this.keys.routerLeader, this.token, 'PX', leaseMs, 'NX')) === 'OK';
      // After a missed renewal the key may still be ours: take it back rather than wait for expiry.
      if (!held)
        held = (await this.redis.eval(EXTEND_IF_OWNER, 1, this.keys.routerLeader, this.token, leaseMs)) === 1;
    }
    this.validUntil = held ? sentAt + leaseMs - CLOCK_MARGIN_MS : 0;
    return held;
  }

  /**
   * At shutdown, once `lastSteps` (the leader's work in flight) ended: deletes the lease if ours,
   * so another replica takes over at once. Returns false, without waiting, while Redis is
   * unreachable (each step would wait out the client's reconnect attempts, and the stop overran
   * its budget): the lease then expires by itself within leaseMs.
   */
  async release(lastSteps: Promise<unknown> = Promise.resolve()): Promise<boolean> {
    this.validUntil = 0;
    if (!(await settlesWhileReady(this.redis, lastSteps, LAST_STEPS_WAIT_MS))) return false;
    const deleted = this.redis.eval(DELETE_IF_OWNER, 1, this.keys.routerLeader, this.token);
    return settlesWhileReady(this.redis, deleted, DELETE_WAIT_MS);
  }
}
