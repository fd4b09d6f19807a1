import { CredentialUnavailableError, failureReason } from './upstream-auth.js';

/** A bearer token and when it stops being valid. */
export interface AccessToken {
  readonly token: string;
  /** Epoch ms. */
  readonly expiresAtMs: number;
  /** Epoch ms from which the issuer suggests getting a new one (some identity platforms say so). */
  readonly refreshAfterMs?: number | undefined;
}

export type TokenSource = () => Promise<AccessToken>;

/** Time and timers, injected so the schedule is tested with a fake clock. */
export interface RefresherClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: RefresherClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Refresh this long before expiry: inside the 5 minutes identity libraries renew their cache in... */
const MAX_LEAD_MS = 4 * 60_000;
/** ...or at 80 % of the lifetime, when that is earlier (short-lived tokens). */
const LEAD_SHARE = 0.2;
/** A token this close to its expiry (a twentieth of its life, 30 s at most) is not sent any more. */
const SKEW_SHARE = 0.05;
const MAX_SKEW_MS = 30_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface RefresherOptions {
  readonly clock?: RefresherClock;
  /** Called once per failed attempt, with the reason (the app logs it). */
  readonly onFailure?: (reason: string) => void;
  /** Called when a token is got after a failure. */
  readonly onRecovery?: () => void;
}

/**
 * The one token cache of every token-based credential: it holds the current token, gets the next
 * one in the background ahead of expiry (4 minutes before it, or at 80 % of a shorter lifetime),
 * shares one in-flight refresh between all callers, and when a refresh fails keeps the last valid
 * token until it expires while retrying with backoff (1 s doubling to 30 s), recording why.
 */
export class TokenRefresher {
  private current: AccessToken | null = null;
  private skewMs = 0;
  private inflight: Promise<AccessToken | null> | null = null;
  private timer: unknown = null;
  private failures = 0;
  private closed = false;
  failure: string | null = null;
  private readonly clock: RefresherClock;

  constructor(
    private readonly source: TokenSource,
    private readonly options: RefresherOptions = {},
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** The token if it is valid now, else null: synchronous, for the hot path. */
  valid(): string | null {
    const c = this.current;
    return c !== null && this.clock.now() < c.expiresAtMs - this.skewMs ? c.token : null;
  }

  /**
   * A valid token: the cached one, else the refresh in flight (the first one at boot). With
   * neither, and the last attempt failed, it does not wait on the identity platform: it throws.
   */
  async token(): Promise<string> {
    const now = this.valid();
    if (now !== null) return now;
    if (this.inflight === null && this.failure !== null) throw new CredentialUnavailableError(this.failure);
    await this.refresh();
    const got = this.valid();
    if (got === null) throw new CredentialUnavailableError(this.failure ?? 'the token expired');
    return got;
  }

  /** Gets the first token and schedules the next refreshes; never throws. */
  async start(): Promise<void> {
    await this.refresh();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** One refresh for every caller at once. Resolves to the new token, or null when it failed. */
  refresh(): Promise<AccessToken | null> {
    this.inflight ??= this.fetch().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetch(): Promise<AccessToken | null> {
    let got: AccessToken;
    try {
      got = await this.source();
      if (typeof got.token !== 'string' || got.token === '' || !(got.expiresAtMs > this.clock.now()))
        throw new Error('the identity platform returned no usable token');
    } catch (err) {
      this.failed(failureReason(err));
      return null;
    }
    const previous = this.current;
    if (previous !== null && got.expiresAtMs <= previous.expiresAtMs && got.token === previous.token) {
      // The library answered from its own cache: not renewed yet; ask again soon.
      this.schedule(Math.min(RETRY_MIN_MS, Math.max(0, previous.expiresAtMs - this.clock.now())));
      return previous;
    }
    this.current = got;
    const lifeMs = got.expiresAtMs - this.clock.now();
    this.skewMs = Math.min(MAX_SKEW_MS, lifeMs * SKEW_SHARE);
    if (this.failure !== null) this.options.onRecovery?.();
    this.failure = null;
    this.failures = 0;
    this.schedule(refreshDelayMs(lifeMs, got.refreshAfterMs, this.clock.now()));
    return got;
  }

  private failed(reason: string): void {
    this.failure = reason;
    this.options.onFailure?.(reason);
    const delay = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** this.failures);
    this.failures++;
    this.schedule(delay);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, delayMs);
  }
}

/**
 * When to refresh a token with `lifeMs` left: 4 minutes before it expires (inside the 5 minutes in
 * which identity libraries renew their own cache, so the refresh gets a new token), or at 80 % of
 * its lifetime when that is earlier (short-lived tokens); no later than the issuer's own hint.
 */
export function refreshDelayMs(lifeMs: number, refreshAfterMs: number | undefined, nowMs: number): number {
  let delay = lifeMs - Math.min(MAX_LEAD_MS, lifeMs * LEAD_SHARE);
  if (refreshAfterMs !== undefined && refreshAfterMs - nowMs < delay) delay = refreshAfterMs - nowMs;
  return Math.max(0, delay);
}
