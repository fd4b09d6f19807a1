import { Inject, Injectable } from '@nestjs/common';
import { type Dispatcher } from 'undici';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { isProviderFailure, type RouteCandidate, type SampleOutcome } from '#libs/routing';
import { type RequestRecord } from '../logs/request-record.js';
import { type PreparedAttempt, type RequestPlan } from './request-plan.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { sendAttempt } from './attempt-send.js';
import { ProviderLimiter } from './provider-limiter.js';
import { type OpenedStream, readOpening } from './stream-opening.js';
import { UpstreamClient } from './upstream.client.js';
import {
  type AttemptFailure,
  classifyUpstreamError,
  CLIENT_GONE,
  credentialsRefused,
  isRetriableStatus,
  mapUpstreamFailure,
  retryAfterMs,
  TOTAL_DEADLINE,
} from './upstream-failure.js';

/** How a stream that was handed to the client ended. */
export type StreamEnd = 'ok' | 'stream_error' | 'aborted';

/** The answer of the attempt that won. */
export interface UpstreamCall {
  readonly providerId: string;
  readonly response: Dispatcher.ResponseData;
  /** Non-stream: the whole body, read inside the attempt (so a broken body still fails over). */
  readonly body: Buffer | null;
  /** Stream: the upstream's bytes to relay, from the first (an opening read ahead included). */
  readonly stream: AsyncIterable<Uint8Array> | null;
  /** The upstream request that was sent: native or translated, and how to read its answer. */
  readonly prepared: PreparedAttempt;
  /** Stream only: stops the upstream (the client hung up). */
  abort(): void;
  /** Stream only, once: the stream ended; ships the sample and frees the slot. */
  end(how: StreamEnd): void;
}

interface Attempt {
  readonly providerId: string;
  readonly startedMs: number;
  readonly leased: boolean;
}

/** What every attempt of one request shares. */
interface Run {
  /** Aborted by the request's total deadline and by the client's hang-up. */
  readonly abort: AbortController;
  readonly deadline: NodeJS.Timeout;
  /** Read a stream's opening ahead (`WireFormat.opening`): a too-long refusal there may fall back. */
  readonly readsOpening: boolean;
}

/** What an attempt got: the answer's content, and whether the attempt is already settled. */
interface Got {
  readonly response: Dispatcher.ResponseData;
  readonly prepared: PreparedAttempt;
  readonly body: Buffer | null;
  readonly stream: AsyncIterable<Uint8Array> | null;
  /** Settled when its answer came whole (a body, or a stream refused in its opening). */
  readonly settled: boolean;
}

/** The attempt's reason on the log when the provider refused the prompt as too long for the window. */
const TOO_LONG = 'prompt too long for the context window';

/** Why a model did not answer, when another model may: what its fallbacks are chosen by. */
export type ModelMiss =
  /** No provider of it answered: none healthy, each at its limit, or each failed before a byte. */
  | { readonly kind: 'unavailable'; readonly error: GatewayError }
  /** A provider refused the prompt as too long for the model's window: its answer, read whole. */
  | { readonly kind: 'too_long'; readonly answer: UpstreamCall };

/** What one model's candidates came to. */
type ModelOutcome = { readonly call: UpstreamCall } | { readonly miss: ModelMiss };

/**
 * The models a request may fall back to, in order (pipeline/fallback-chain.ts): after a miss,
 * the next one the miss allows that `serves` the request and the request may reach, made the
 * request's model; null when none is left.
 */
export interface Fallbacks {
  next(miss: ModelMiss, serves: (model: string) => boolean): Promise<string | null>;
}

const NO_FALLBACKS: Fallbacks = { next: () => Promise.resolve(null) };

/**
 * Calls a model's candidates in route order until one answers: connect errors, first-byte
 * timeouts, 429, 5xx, a refusal of the gateway's credentials (401/403) and, for non-stream, a
 * body broken off move on to the next, up to `routing.max_attempts` per model and within
 * `routing.total_timeout_ms` for the whole request. A model that misses (none of its providers
 * answered, or one refused the prompt as too long) hands over to its next fallback, if any.
 * Once a stream is handed to the client nothing is retried. Every attempt is logged, ships a
 * passive sample, feeds the local breaker, and holds a provider slot when the provider has limits.
 */
@Injectable()
export class FailoverService {
  private readonly maxAttempts: number;
  private readonly totalTimeoutMs: number;

  constructor(
    private readonly routes: RoutesService,
    private readonly upstream: UpstreamClient,
    private readonly samples: SampleShipper,
    private readonly limiter: ProviderLimiter,
    private readonly telemetry: EdgeTelemetry,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.maxAttempts = config.routing.max_attempts;
    this.totalTimeoutMs = config.routing.total_timeout_ms;
    // Which models each endpoint can reach follows the providers of each configuration version.
    catalog.onChange(() => this.servedBy.clear());
  }

  async call(plan: RequestPlan, record: RequestRecord, fallbacks = NO_FALLBACKS): Promise<UpstreamCall> {
    const model = record.model ?? '';
    if (!this.servesEndpoint(model, plan)) {
      throw new GatewayError(
        'invalid_request',
        `The providers of the model \`${model}\` cannot serve ${plan.route}.`,
        { param: 'model' },
      );
    }
    // One controller per request: the total deadline and the client's hang-up both abort it.
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(TOTAL_DEADLINE), this.totalTimeoutMs);
    const run: Run = { abort, deadline, readsOpening: fallbacks !== NO_FALLBACKS };
    try {
      for (;;) {
        const outcome = await this.model(plan, record, run);
        if ('call' in outcome) {
          if (outcome.call.body !== null) clearTimeout(deadline);
          return outcome.call;
        }
        const { miss } = outcome;
        const next = await fallbacks.next(miss, (m) => this.servesEndpoint(m, plan));
        if (next !== null) continue;
        if (miss.kind === 'unavailable') throw miss.error;
        if (miss.answer.body !== null) clearTimeout(deadline);
        return miss.answer;
      }
    } catch (err) {
      clearTimeout(deadline);
      throw err;
    }
  }

  /** The candidates of the request's model (`record.model`), tried in route order. */
  private model(plan: RequestPlan, record: RequestRecord, run: Run): Promise<ModelOutcome> {
    const model = record.model ?? '';
    const session = this.routes.sticky(model) ? plan.session : null;
    const candidates = this.routes.candidates(model, session);
    if (candidates.length === 0) return Promise.resolve(unavailable(noProvider(model)));
    if (session !== null) record.routedBySession();
    return this.attempts(plan, record, candidates, run);
  }

  /** Per route (endpoints are constants): the models some provider able to serve it serves. */
  private readonly servedBy = new Map<string, ReadonlySet<string>>();

  /** Whether any configured provider of the model can serve the endpoint, natively or translated. */
  private servesEndpoint(model: string, plan: RequestPlan): boolean {
    let models = this.servedBy.get(plan.route);
    if (!models) {
      const providers = [...this.catalog.providers.values()];
      models = new Set(
        providers.flatMap((p) => p.models.filter((m) => plan.serves(p.type, m.upstream)).map((m) => m.id)),
      );
      this.servedBy.set(plan.route, models);
    }
    return models.has(model);
  }

  private async attempts(
    plan: RequestPlan,
    record: RequestRecord,
    candidates: readonly RouteCandidate[],
    run: Run,
  ): Promise<ModelOutcome> {
    const { abort } = run;
    let lastError: GatewayError | null = null;
    // A candidate whose format cannot express the request; reported only if no other one answered.
    let unexpressible: GatewayError | null = null;
    let limitedRetryMs = -1;
    let tries = 0;
    for (let i = 0; i < candidates.length && tries < this.maxAttempts; i++) {
      const candidate = candidates[i]!;
      const provider = this.catalog.providers.get(candidate.providerId);
      if (!provider) continue;
      if (!plan.serves(provider.type, candidate.upstreamModel)) continue;
      let prepared: PreparedAttempt;
      try {
        prepared = plan.prepare(provider, candidate.upstreamModel);
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        unexpressible ??= err;
        continue;
      }
      const t = record.elapsedMs();
      const slot = this.limiter.acquire(provider.id, record.requestId);
      if (slot !== null) {
        const got = await slot;
        if (!got.ok) {
          // Our own limit, not the provider's answer: no upstream call, no sample, no breaker count.
          record.addAttempt(provider.id, 0, 'limited', t);
          if (limitedRetryMs < 0 || got.retryAfterMs < limitedRetryMs) limitedRetryMs = got.retryAfterMs;
          continue;
        }
      }
      tries++;
      const attempt: Attempt = { providerId: provider.id, startedMs: t, leased: slot !== null };
      record.attemptStarted(provider.id, candidate.upstreamModel, prepared.adjustments);
      this.routes.attemptStarted(provider.id);
      let response: Dispatcher.ResponseData;
      try {
        response = await sendAttempt(this.upstream, provider, prepared, abort.signal);
      } catch (err) {
        const failure = classifyUpstreamError(err, abort.signal, false);
        this.failed(record, attempt, failure, 0);
        // The deadline passed or the client left: no other provider, nor model, is worth a try.
        if (!failure.retriable) throw failure.error;
        lastError = failure.error;
        continue;
      }
      const status = response.statusCode;
      if (isRetriableStatus(status)) {
        const retryAfter = headerString(response.headers['retry-after']);
        record.addAttempt(provider.id, status, 'http_error', t);
        this.settle(
          record,
          attempt,
          status === 429 ? 'rate_limited' : 'http_error',
          status,
          retryAfterMs(retryAfter),
        );
        lastError = mapUpstreamFailure(status, retryAfter) as GatewayError;
        await response.body.dump().catch(() => undefined);
        continue;
      }
      if (!record.stream || status !== 200) {
        let buf: Buffer;
        try {
          buf = Buffer.from(await response.body.arrayBuffer());
        } catch (err) {
          const failure = classifyUpstreamError(err, abort.signal, true);
          this.failed(record, attempt, failure, status);
          if (!failure.retriable) throw failure.error;
          lastError = failure.error;
          continue;
        }
        const refusal = status < 400 ? null : prepared.refusal(status, response.headers, buf);
        if (refusal !== null) {
          this.refused(record, attempt, status, refusal);
          lastError = credentialsRefused();
          continue;
        }
        // The prompt does not fit this model: its other providers hold the same window.
        const tooLong = status >= 400 && prepared.contextExceeded(status, buf);
        record.addAttempt(
          provider.id,
          status,
          status < 400 ? 'ok' : 'http_error',
          t,
          tooLong ? TOO_LONG : undefined,
        );
        this.settle(record, attempt, status < 400 ? 'ok' : 'http_error', status, null);
        const got: Got = { response, prepared, body: buf, stream: null, settled: true };
        const answer = this.answer(record, attempt, got, run);
        return tooLong ? { miss: { kind: 'too_long', answer } } : { call: answer };
      }
      let opened: OpenedStream = { verdict: 'go', stream: response.body };
      const opening = run.readsOpening ? prepared.wire?.opening : undefined;
      if (opening !== undefined && prepared.wire?.streamDecoder === undefined) {
        try {
          opened = await readOpening(response.body, opening);
        } catch (err) {
          const failure = classifyUpstreamError(err, abort.signal, true);
          this.failed(record, attempt, failure, status);
          if (!failure.retriable) throw failure.error;
          lastError = failure.error;
          continue;
        }
      }
      const tooLong = opened.verdict === 'too_long';
      record.addAttempt(
        provider.id,
        status,
        tooLong ? 'http_error' : 'ok',
        t,
        tooLong ? TOO_LONG : undefined,
      );
      // A refusal in the opening is whole (the stream ended with it): settled as an error answer.
      if (tooLong) this.settle(record, attempt, 'http_error', status, null);
      const got: Got = { response, prepared, body: null, stream: opened.stream, settled: tooLong };
      const answer = this.answer(record, attempt, got, run);
      return tooLong ? { miss: { kind: 'too_long', answer } } : { call: answer };
    }
    if (lastError) return unavailable(lastError);
    if (unexpressible) throw unexpressible;
    if (limitedRetryMs >= 0) {
      return unavailable(
        new GatewayError(
          'rate_limit_exceeded',
          'Every provider for this model is at its limit; retry later.',
          {
            retryAfterSeconds: Math.max(1, Math.ceil(limitedRetryMs / 1000)),
          },
        ),
      );
    }
    return unavailable(noProvider(record.model ?? ''));
  }

  private answer(record: RequestRecord, attempt: Attempt, got: Got, run: Run): UpstreamCall {
    let ended = got.settled;
    return {
      providerId: attempt.providerId,
      response: got.response,
      body: got.body,
      stream: got.stream,
      prepared: got.prepared,
      abort: () => run.abort.abort(CLIENT_GONE),
      end: (how: StreamEnd) => {
        clearTimeout(run.deadline);
        if (ended) return;
        ended = true;
        if (how !== 'ok') record.failLastAttempt(how === 'aborted' ? 'aborted' : 'stream_error');
        this.settle(record, attempt, how === 'aborted' ? null : how, 200, null);
      },
    };
  }

  /**
   * The provider refused the gateway's own credentials: a provider failure like a 5xx (the next
   * candidate is tried), logged with the vendor's words, and sampled with them so the router marks
   * the provider down fleet-wide until a probe passes.
   */
  private refused(record: RequestRecord, attempt: Attempt, status: number, words: string): void {
    const reason = words === '' ? 'credentials refused' : `credentials refused: ${words}`;
    record.addAttempt(attempt.providerId, status, 'http_error', attempt.startedMs, reason);
    this.settle(record, attempt, 'http_error', status, null, words);
  }

  private failed(record: RequestRecord, attempt: Attempt, failure: AttemptFailure, status: number): void {
    record.addAttempt(attempt.providerId, status, failure.outcome, attempt.startedMs);
    this.settle(record, attempt, failure.outcome === 'aborted' ? null : failure.outcome, status, null);
  }

  /**
   * Ends an attempt: in-flight count, local breaker, sample (none for a client hang-up), slot.
   * `refusal`: the words of a refused credential, carried by the sample.
   */
  private settle(
    record: RequestRecord,
    attempt: Attempt,
    outcome: SampleOutcome | null,
    status: number,
    retryAfter: number | null,
    refusal?: string,
  ): void {
    const failure = outcome === null ? null : isProviderFailure({ outcome, status });
    this.routes.attemptEnded(attempt.providerId, failure);
    this.telemetry.attemptEnded(record, attempt.providerId, attempt.startedMs, outcome, status);
    if (outcome !== null) {
      const now = record.elapsedMs();
      const ttft = record.stream && record.ttftMs !== null ? record.ttftMs - attempt.startedMs : null;
      this.samples.push({
        providerId: attempt.providerId,
        model: record.model ?? '',
        at: Date.now(),
        outcome,
        status,
        latencyMs: Math.round(now - attempt.startedMs),
        ttftMs: ttft === null ? null : Math.round(ttft),
        retryAfterMs: retryAfter,
        ...(refusal === undefined ? {} : { refusal }),
      });
    }
    if (attempt.leased) this.limiter.release(attempt.providerId, record.requestId);
  }
}

const unavailable = (error: GatewayError): ModelOutcome => ({ miss: { kind: 'unavailable', error } });

const noProvider = (model: string): GatewayError =>
  new GatewayError('no_available_provider', `No provider is available for the model \`${model}\`.`);

const headerString = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
