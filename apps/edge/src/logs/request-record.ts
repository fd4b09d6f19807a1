import { type KeyRecord } from '#libs/auth';
import { type Attempt, type LoggedPrices, type RequestLogJob } from '#libs/queue';
import { type CanonicalUsage } from '#libs/providers';

/** What one request did, filled in as it goes and turned into exactly one log job at the end. */
export class RequestRecord {
  private readonly t0 = performance.now();
  key: KeyRecord | null = null;
  model: string | null = null;
  providerId: string | null = null;
  upstreamModel: string | null = null;
  stream = false;
  ttftMs: number | null = null;
  usage: CanonicalUsage | null = null;
  /** `usage` is estimated (see usage-estimate.ts), not the provider's count. */
  usageEstimated = false;
  /** The prices the request was charged at (null: the model has none). */
  prices: LoggedPrices | null = null;
  /** What translation carried or dropped for the provider that answered (see Adjustments). */
  adjustments: readonly string[] = [];
  readonly attempts: Attempt[] = [];
  private finished = false;

  constructor(
    readonly requestId: string,
    readonly endpoint: string,
    /** From the quota gate's clock: the start places the charge in its budget windows. */
    readonly startedAt: Date = new Date(),
  ) {}

  elapsedMs(): number {
    return performance.now() - this.t0;
  }

  markFirstByte(): void {
    if (this.ttftMs === null) this.ttftMs = round(this.elapsedMs());
  }

  addAttempt(providerId: string, status: number, outcome: Attempt['outcome'], startedMs: number): void {
    this.attempts.push({ providerId, status, outcome, latencyMs: round(this.elapsedMs() - startedMs) });
  }

  /** A stream that failed after its headers: the last attempt was logged 'ok' when they came. */
  failLastAttempt(outcome: Attempt['outcome']): void {
    const last = this.attempts.at(-1);
    if (last) this.attempts[this.attempts.length - 1] = { ...last, outcome };
  }

  /** The log job, once: a second call returns null so no path can log a request twice. */
  finish(status: number, errorCode: string | null, costNanos: number): RequestLogJob | null {
    if (this.finished) return null;
    this.finished = true;
    return {
      v: 1,
      requestId: this.requestId,
      startedAt: this.startedAt.toISOString(),
      keyId: this.key?.id ?? null,
      userId: this.key?.userId ?? null,
      group: this.key?.group ?? null,
      endpoint: this.endpoint,
      model: this.model,
      providerId: this.providerId,
      upstreamModel: this.upstreamModel,
      stream: this.stream,
      status,
      errorCode,
      latencyMs: round(this.elapsedMs()),
      ttftMs: this.ttftMs,
      usage: this.usage,
      usageEstimated: this.usageEstimated,
      adjustments: [...this.adjustments],
      costNanos,
      prices: this.prices,
      attempts: this.attempts,
    };
  }
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
