import { Inject, Injectable } from '@nestjs/common';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { type RouteCandidate } from '#libs/routing';
import { type RequestRecord } from '../logs/request-record.js';
import { closeAttempt, newAttempt } from '../logs/upstream-attempt.js';
import { RoutesService } from '../routing/routes.service.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { AttemptSender } from './attempt-sender.js';
import { ProviderLimiter } from './provider-limiter.js';
import { type PreparedAttempt, type RequestPlan } from './request-plan.js';
import { type ModelMiss, type ModelOutcome, type UpstreamCall, UpstreamRun } from './upstream-run.js';

/**
 * The models a request may fall back to, in order (pipeline/fallback-chain.ts): after `model`
 * missed, the next one the miss allows that `serves` the request and the request may reach;
 * null when none is left.
 */
export interface Fallbacks {
  next(miss: ModelMiss, model: string, serves: (model: string) => boolean): Promise<string | null>;
}

const NO_FALLBACKS: Fallbacks = { next: () => Promise.resolve(null) };

/**
 * Calls a model's candidates in route order until one answers: connect errors, first-byte
 * timeouts, 429, 5xx, a refusal of the gateway's credentials (401/403) and, for non-stream, a
 * body broken off move on to the next, up to `routing.max_attempts` per model and within
 * `routing.total_timeout_ms` for the whole request. A model that misses (none of its providers
 * answered, or one refused the prompt as too long) hands over to its next fallback, if any.
 * Once a stream is handed to the client nothing is retried.
 *
 * It reads the request's record (its id, model, clock) and writes nothing of it: it returns an
 * `UpstreamRun`, the answer or the error with every attempt, which the request's lifecycle copies
 * onto the record. Each attempt is sent and read by `AttemptSender`, which settles those the
 * failover is done with (`AttemptSettler`: breaker, sample, slot); a stream handed to the client
 * is settled by the request's end.
 */
@Injectable()
export class FailoverService {
  private readonly maxAttempts: number;
  private readonly totalTimeoutMs: number;

  constructor(
    private readonly routes: RoutesService,
    private readonly sender: AttemptSender,
    private readonly limiter: ProviderLimiter,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.maxAttempts = config.routing.max_attempts;
    this.totalTimeoutMs = config.routing.total_timeout_ms;
    // Which models each endpoint can reach follows the providers of each configuration version.
    catalog.onChange(() => this.servedBy.clear());
  }

  /**
   * The request's model (`record.model`), then its fallbacks, until an answer. Throws only before
   * any attempt (no provider of the model can serve the endpoint: `invalid_request`); every
   * failure after is the run's `error`, so its attempts are never lost.
   */
  async call(plan: RequestPlan, record: RequestRecord, fallbacks = NO_FALLBACKS): Promise<UpstreamRun> {
    const model = record.model ?? '';
    if (!this.servesEndpoint(model, plan)) {
      throw new GatewayError(
        'invalid_request',
        `The providers of the model \`${model}\` cannot serve ${plan.route}.`,
        { param: 'model' },
      );
    }
    const run = new UpstreamRun(model, fallbacks !== NO_FALLBACKS, this.totalTimeoutMs);
    try {
      for (;;) {
        const outcome = await this.model(plan, record, run);
        if ('call' in outcome) return answered(run, outcome.call);
        const { miss } = outcome;
        const next = await fallbacks.next(miss, run.model, (m) => this.servesEndpoint(m, plan));
        if (next !== null) {
          run.model = next;
          continue;
        }
        return miss.kind === 'unavailable' ? failed(run, miss.error) : answered(run, miss.answer);
      }
    } catch (err) {
      if (err instanceof GatewayError) return failed(run, err);
      run.stopDeadline();
      throw err;
    }
  }

  /** The candidates of the run's model, tried in route order. */
  private model(plan: RequestPlan, record: RequestRecord, run: UpstreamRun): Promise<ModelOutcome> {
    const session = this.routes.sticky(run.model) ? plan.session : null;
    const candidates = this.routes.candidates(run.model, session);
    if (candidates.length === 0) return Promise.resolve(unavailable(noProvider(run.model)));
    if (session !== null) run.sessionRouted = true;
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
    run: UpstreamRun,
  ): Promise<ModelOutcome> {
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
      const got = slot === null ? null : await slot;
      const attempt = newAttempt(
        provider.id,
        run.model,
        candidate.upstreamModel,
        prepared.adjustments,
        t,
        got?.ok === true,
      );
      run.attempts.push(attempt);
      if (got !== null && !got.ok) {
        // Our own limit, not the provider's answer: no upstream call, no sample, no breaker count.
        closeAttempt(attempt, record.elapsedMs(), 0, 'limited');
        if (limitedRetryMs < 0 || got.retryAfterMs < limitedRetryMs) limitedRetryMs = got.retryAfterMs;
        continue;
      }
      tries++;
      this.routes.attemptStarted(provider.id);
      const outcome = await this.sender.send(record, run, attempt, provider, prepared);
      if (outcome instanceof GatewayError) {
        lastError = outcome;
        continue;
      }
      return outcome;
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
    return unavailable(noProvider(run.model));
  }
}

function answered(run: UpstreamRun, call: UpstreamCall): UpstreamRun {
  run.answer = call;
  // A body is read whole: the request is done with the upstream. A stream runs on until its end.
  if (call.body !== null) run.stopDeadline();
  return run;
}

function failed(run: UpstreamRun, error: GatewayError): UpstreamRun {
  run.error = error;
  run.stopDeadline();
  return run;
}

const unavailable = (error: GatewayError): ModelOutcome => ({ miss: { kind: 'unavailable', error } });

const noProvider = (model: string): GatewayError =>
  new GatewayError('no_available_provider', `No provider is available for the model \`${model}\`.`);
