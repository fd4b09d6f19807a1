import { type KeyRecord } from '#libs/auth';
import { recordableText } from '#libs/protocol';
import { type Attempt, type LoggedPrices, type RequestLogJob } from '#libs/queue';
import { type CanonicalUsage } from '#libs/providers';
import { type Pricing } from '#libs/quota';

/**
 * What one request did, and the one place it is written: each step of the pipeline tells it what
 * happened (authenticated, admitted, an attempt began, the answer measured, priced), and it turns
 * that into exactly one log job at the end. The fields are read-only outside.
 */
export class RequestRecord {
  private readonly t0 = performance.now();
  #key: KeyRecord | null = null;
  #model: string | null = null;
  #requestedModel: string | null = null;
  #fallbackFrom: string | null = null;
  #providerId: string | null = null;
  #upstreamModel: string | null = null;
  #stream = false;
  #pricing: Pricing | null = null;
  #ttftMs: number | null = null;
  #usage: CanonicalUsage | null = null;
  #usageEstimated = false;
  #prices: LoggedPrices | null = null;
  #adjustments: readonly string[] = [];
  #sessionRouted = false;
  readonly attempts: Attempt[] = [];
  private finished = false;

  constructor(
    readonly requestId: string,
    readonly endpoint: string,
    /** From the quota gate's clock: the start places the charge in its budget windows. */
    readonly startedAt: Date = new Date(),
  ) {}

  get key(): KeyRecord | null {
    return this.#key;
  }
  get model(): string | null {
    return this.#model;
  }
  /** The model as the client named it (an id or an alias), recordable. */
  get requestedModel(): string | null {
    return this.#requestedModel;
  }
  /** The model the request was for, once a fallback took over (`model` is then the fallback). */
  get fallbackFrom(): string | null {
    return this.#fallbackFrom;
  }
  get providerId(): string | null {
    return this.#providerId;
  }
  get upstreamModel(): string | null {
    return this.#upstreamModel;
  }
  get stream(): boolean {
    return this.#stream;
  }
  get ttftMs(): number | null {
    return this.#ttftMs;
  }
  get usage(): CanonicalUsage | null {
    return this.#usage;
  }
  /** `usage` is estimated (see usage-estimate.ts), not the provider's count. */
  get usageEstimated(): boolean {
    return this.#usageEstimated;
  }
  /** The prices the request was charged at (null: the model has none). */
  get prices(): LoggedPrices | null {
    return this.#prices;
  }
  /** What translation carried or dropped for the provider that answered (see Adjustments). */
  get adjustments(): readonly string[] {
    return this.#adjustments;
  }
  /** Its candidates were ordered by its agent session (its home provider first). Telemetry only. */
  get sessionRouted(): boolean {
    return this.#sessionRouted;
  }

  authenticated(key: KeyRecord): void {
    this.#key = key;
  }

  /** What the client named as its model, whatever it is: bounded and escaped, as it is client input. */
  requested(name: unknown): void {
    this.#requestedModel = typeof name === 'string' ? recordableText(name, MAX_REQUESTED_MODEL_CHARS) : null;
  }

  /**
   * The model the request is for, with its prices as the configuration version the request
   * started on has them: a price changed while it runs applies from the next request.
   */
  targeted(model: string, stream = false, pricing: Pricing | null = null): void {
    this.#model = model;
    this.#stream = stream;
    this.#pricing = pricing;
  }

  get pricing(): Pricing | null {
    return this.#pricing;
  }

  /**
   * The request moves on to a fallback model: from now on it is that model's, charged at its
   * prices. The attempts so far were for the model before it, and say so, as every later one does.
   */
  fellBack(model: string, pricing: Pricing | null): void {
    const from = this.#model ?? '';
    this.#fallbackFrom ??= from;
    for (let i = 0; i < this.attempts.length; i++) {
      const a = this.attempts[i]!;
      if (a.model === undefined) this.attempts[i] = { ...a, model: from };
    }
    this.#model = model;
    this.#pricing = pricing;
  }

  routedBySession(): void {
    this.#sessionRouted = true;
  }

  /** An attempt goes upstream: the provider it tries, under which name, translated how. */
  attemptStarted(providerId: string, upstreamModel: string, adjustments: readonly string[]): void {
    this.#providerId = providerId;
    this.#upstreamModel = upstreamModel;
    this.#adjustments = adjustments;
  }

  /** The answer's usage, as the provider counted it or as estimated. */
  measured(usage: CanonicalUsage | null, estimated = false): void {
    this.#usage = usage;
    this.#usageEstimated = estimated;
  }

  priced(prices: LoggedPrices | null): void {
    this.#prices = prices;
  }

  elapsedMs(): number {
    return performance.now() - this.t0;
  }

  markFirstByte(): void {
    if (this.#ttftMs === null) this.#ttftMs = round(this.elapsedMs());
  }

  /** `reason`: why it failed in the provider's words (bounded and escaped by the caller). */
  addAttempt(
    providerId: string,
    status: number,
    outcome: Attempt['outcome'],
    startedMs: number,
    reason?: string,
  ): void {
    const latencyMs = round(this.elapsedMs() - startedMs);
    const attempt: Attempt =
      reason === undefined
        ? { providerId, status, outcome, latencyMs }
        : { providerId, status, outcome, latencyMs, reason };
    if (this.#fallbackFrom !== null && this.#model !== null) attempt.model = this.#model;
    this.attempts.push(attempt);
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
      requestedModel: this.requestedModel,
      fallbackFrom: this.fallbackFrom,
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

/** The job contract's bound on `requestedModel`. */
const MAX_REQUESTED_MODEL_CHARS = 300;
