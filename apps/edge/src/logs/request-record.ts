import { type Span } from '@opentelemetry/api';
import { type KeyRecord } from '#libs/auth';
import { recordableText } from '#libs/protocol';
import { type Attempt, type LoggedPrices, type RequestLogJob } from '#libs/queue';
import {
  type CanonicalUsage,
  type ClientApi,
  type JsonObject,
  type ResponseFacts,
  type StreamTranscript,
} from '#libs/providers';
import { type Pricing } from '#libs/quota';
import { type OutputMessage } from '#libs/telemetry';
import { loggedAttempt, type UpstreamAttempt } from './upstream-attempt.js';

/** The prompt and the answer kept while content capture is on (telemetry/content). */
export interface CapturedExchange {
  readonly api: ClientApi;
  readonly body: JsonObject;
  answered: boolean;
  output: OutputMessage[] | null;
  transcript: StreamTranscript | null;
}

/**
 * What one request did. Its owner, the request's lifecycle (`pipeline/model-request.ts`; a token
 * count's is `TokenCountService`; a WebSocket session's or a job's requests are each owned through
 * a `RequestOwner`), is the one writer of what the log says: it tells the record each step
 * (authenticated, targeted, the failover's attempts, the answer measured, priced), and the record
 * turns that into exactly one log job at the end (`pipeline/request-end.ts`). The telemetry reads the same record at the end, and keeps its own few notes
 * on it while the request runs (`facts`, `failoverSpan`, `content`: set only while tracing or
 * capturing content), so no side store follows a request.
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
  #attempts: readonly UpstreamAttempt[] = NO_ATTEMPTS;
  private finished = false;

  /** Telemetry's note: the answer's model and finish reasons, for the spans. */
  facts: ResponseFacts | null = null;
  /** Telemetry's note: the failover span, parent of the attempt spans. */
  failoverSpan: Span | null = null;
  /** Telemetry's note: the prompt and answer, while content capture is on. */
  content: CapturedExchange | null = null;

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
   * A fallback model answered (or was the last tried): the request is that model's, charged at its
   * prices, and each of its attempts names the model it was for on the log.
   */
  fellBack(model: string, pricing: Pricing | null): void {
    this.#fallbackFrom ??= this.#model ?? '';
    this.#model = model;
    this.#pricing = pricing;
  }

  /**
   * The failover's attempts, in order: the last one sent upstream names the provider, its model's
   * upstream name and what translating for it carried or dropped (a `limited` one was never sent).
   */
  attempted(attempts: readonly UpstreamAttempt[], sessionRouted: boolean): void {
    this.#attempts = attempts;
    this.#sessionRouted = sessionRouted;
    for (let i = attempts.length - 1; i >= 0; i--) {
      const a = attempts[i]!;
      if (a.outcome === 'limited') continue;
      this.#providerId = a.providerId;
      this.#upstreamModel = a.upstreamModel;
      this.#adjustments = a.adjustments;
      return;
    }
  }

  /** Every upstream attempt, in order (the answering one last). */
  get attempts(): readonly UpstreamAttempt[] {
    return this.#attempts;
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

  /** A stream that failed after its headers: the answering (last) attempt was logged 'ok' when they came. */
  failLastAttempt(outcome: Attempt['outcome']): void {
    const last = this.#attempts.at(-1);
    if (last) last.outcome = outcome;
  }

  /** Its log job was made: the request has ended. */
  get isFinished(): boolean {
    return this.finished;
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
      attempts: this.loggedAttempts(),
    };
  }

  private loggedAttempts(): Attempt[] {
    const withModel = this.#fallbackFrom !== null;
    const out = new Array<Attempt>(this.#attempts.length);
    for (let i = 0; i < out.length; i++) out[i] = loggedAttempt(this.#attempts[i]!, withModel);
    return out;
  }
}

const NO_ATTEMPTS: readonly UpstreamAttempt[] = [];

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The job contract's bound on `requestedModel`. */
const MAX_REQUESTED_MODEL_CHARS = 300;
