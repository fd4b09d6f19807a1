import { Injectable } from '@nestjs/common';
import { isProviderFailure, type SampleOutcome } from '#libs/routing';
import { type RequestRecord } from '../logs/request-record.js';
import { type UpstreamAttempt } from '../logs/upstream-attempt.js';
import { RoutesService } from '../routing/routes.service.js';
import { SampleShipper } from '../routing/sample-shipper.service.js';
import { ProviderLimiter } from './provider-limiter.js';

/** A refused credential's words, and the provider's `retry-after`, for the router's sample. */
export interface SampleExtras {
  readonly retryAfterMs?: number | null;
  readonly refusal?: string;
}

const NONE: SampleExtras = {};

/**
 * Ends an upstream attempt, once: the in-flight count and the local breaker, the passive sample
 * for the router (none for a client hang-up, `aborted`), and the provider slot it holds. The
 * failover settles the attempts it is done with; the attempt whose stream was handed to the
 * client is settled by the request's end (`ModelRequest.end`).
 */
@Injectable()
export class AttemptSettler {
  constructor(
    private readonly routes: RoutesService,
    private readonly samples: SampleShipper,
    private readonly limiter: ProviderLimiter,
  ) {}

  settle(
    record: RequestRecord,
    attempt: UpstreamAttempt,
    ended: SampleOutcome | 'aborted',
    extras: SampleExtras = NONE,
  ): void {
    if (attempt.ended !== null) return;
    const now = record.elapsedMs();
    attempt.ended = ended;
    attempt.endedMs = now;
    const { status } = attempt;
    const failure = ended === 'aborted' ? null : isProviderFailure({ outcome: ended, status });
    this.routes.attemptEnded(attempt.providerId, failure);
    if (ended !== 'aborted') {
      const ttft = record.stream && record.ttftMs !== null ? record.ttftMs - attempt.startedMs : null;
      this.samples.push({
        providerId: attempt.providerId,
        model: attempt.model,
        at: Date.now(),
        outcome: ended,
        status,
        latencyMs: Math.round(now - attempt.startedMs),
        ttftMs: ttft === null ? null : Math.round(ttft),
        retryAfterMs: extras.retryAfterMs ?? null,
        ...(extras.refusal === undefined ? {} : { refusal: extras.refusal }),
      });
    }
    if (attempt.leased) this.limiter.release(attempt.providerId, record.requestId);
  }
}
