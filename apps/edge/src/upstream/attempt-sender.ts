import { Injectable } from '@nestjs/common';
import { type Dispatcher } from 'undici';
import { type ProviderRuntime } from '#libs/config';
import { type GatewayError } from '#libs/protocol';
import { type RequestRecord } from '../logs/request-record.js';
import { closeAttempt, type UpstreamAttempt } from '../logs/upstream-attempt.js';
import { sendAttempt } from './attempt-send.js';
import { AttemptSettler } from './attempt-settler.js';
import { BrokenBody, type BufferedResponse } from './buffered-dispatch.js';
import { type PreparedAttempt } from './request-plan.js';
import { type OpenedStream, readOpening } from './stream-opening.js';
import { UpstreamClient } from './upstream.client.js';
import {
  classifyUpstreamError,
  credentialsRefused,
  isRetriableStatus,
  mapUpstreamFailure,
  retryAfterMs,
} from './upstream-failure.js';
import { type ModelOutcome, type ResponseHead, type UpstreamCall, type UpstreamRun } from './upstream-run.js';

/** The attempt's reason on the log when the provider refused the prompt as too long for the window. */
const TOO_LONG = 'prompt too long for the context window';

/**
 * One upstream attempt, sent and read: what its answer (or failure) says to the failover, written
 * on the attempt (`closeAttempt`), and the attempt settled when the failover is done with it. A
 * stream's headers end the attempt's part here: the stream itself is settled by the request's end.
 */
@Injectable()
export class AttemptSender {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly settler: AttemptSettler,
  ) {}

  /**
   * One attempt: its answer (or its refusal as too long), or the error to try the next candidate
   * after. Throws a failure no other candidate is worth a try after (deadline passed, client gone).
   * A non-stream answer is read whole by the upstream client; a stream's is relayed as it comes.
   */
  send(
    record: RequestRecord,
    run: UpstreamRun,
    attempt: UpstreamAttempt,
    provider: ProviderRuntime,
    prepared: PreparedAttempt,
  ): Promise<ModelOutcome | GatewayError> {
    // A direct attempt's answers are read whole whatever the request (it serves embeddings only).
    if (record.stream && prepared.direct === undefined)
      return this.sendStream(record, run, attempt, provider, prepared);
    return this.sendWhole(record, run, attempt, provider, prepared);
  }

  private async sendWhole(
    record: RequestRecord,
    run: UpstreamRun,
    attempt: UpstreamAttempt,
    provider: ProviderRuntime,
    prepared: PreparedAttempt,
  ): Promise<ModelOutcome | GatewayError> {
    let response: BufferedResponse;
    try {
      response = await sendAttempt(this.upstream, provider, prepared, run.abort.signal);
    } catch (err) {
      if (err instanceof BrokenBody)
        return this.broken(record, run, attempt, err.cause, err.statusCode, true);
      return this.broken(record, run, attempt, err, 0, false);
    }
    if (isRetriableStatus(response.statusCode)) {
      const error = this.retriable(record, attempt, response);
      await response.drained;
      return error;
    }
    return this.answered(record, attempt, prepared, response, response.body);
  }

  private async sendStream(
    record: RequestRecord,
    run: UpstreamRun,
    attempt: UpstreamAttempt,
    provider: ProviderRuntime,
    prepared: PreparedAttempt,
  ): Promise<ModelOutcome | GatewayError> {
    let response: Dispatcher.ResponseData;
    try {
      response = await this.upstream.post({
        provider,
        path: prepared.path,
        headers: prepared.headers,
        body: prepared.body,
        signal: run.abort.signal,
      });
    } catch (err) {
      return this.broken(record, run, attempt, err, 0, false);
    }
    const status = response.statusCode;
    if (isRetriableStatus(status)) {
      const error = this.retriable(record, attempt, response);
      await response.body.dump().catch(() => undefined);
      return error;
    }
    if (status === 200) return this.opened(record, run, attempt, prepared, response);
    // An error answer to a stream: read whole inside the attempt, as a non-stream answer is.
    let buf: Buffer;
    try {
      buf = Buffer.from(await response.body.arrayBuffer());
    } catch (err) {
      return this.broken(record, run, attempt, err, status, true);
    }
    return this.answered(record, attempt, prepared, response, buf);
  }

  /** 429 or 5xx: the next candidate (the caller drops the body). */
  private retriable(record: RequestRecord, attempt: UpstreamAttempt, response: ResponseHead): GatewayError {
    const status = response.statusCode;
    const retryAfter = headerString(response.headers['retry-after']);
    closeAttempt(attempt, record.elapsedMs(), status, 'http_error');
    this.settler.settle(record, attempt, status === 429 ? 'rate_limited' : 'http_error', {
      retryAfterMs: retryAfterMs(retryAfter),
    });
    return mapUpstreamFailure(status, retryAfter) as GatewayError;
  }

  /** A non-stream answer (or an error answer to a stream), its body read whole inside the attempt. */
  private answered(
    record: RequestRecord,
    attempt: UpstreamAttempt,
    prepared: PreparedAttempt,
    response: ResponseHead,
    buf: Buffer,
  ): ModelOutcome | GatewayError {
    const status = response.statusCode;
    const refusal = status < 400 ? null : prepared.refusal(status, response.headers, buf);
    if (refusal !== null) return this.refused(record, attempt, status, refusal);
    // The prompt does not fit this model: its other providers hold the same window.
    const tooLong = status >= 400 && prepared.contextExceeded(status, buf);
    const outcome = status < 400 ? 'ok' : 'http_error';
    closeAttempt(attempt, record.elapsedMs(), status, outcome, tooLong ? TOO_LONG : undefined);
    this.settler.settle(record, attempt, outcome);
    const call: UpstreamCall = {
      providerId: attempt.providerId,
      response,
      body: buf,
      stream: null,
      prepared,
      attempt,
    };
    return tooLong ? { miss: { kind: 'too_long', answer: call } } : { call };
  }

  /** A stream's headers came (and its opening, read ahead when a refusal there may fall back). */
  private async opened(
    record: RequestRecord,
    run: UpstreamRun,
    attempt: UpstreamAttempt,
    prepared: PreparedAttempt,
    response: Dispatcher.ResponseData,
  ): Promise<ModelOutcome | GatewayError> {
    const status = response.statusCode;
    let opened: OpenedStream = { verdict: 'go', stream: response.body };
    const opening = run.readsOpening ? prepared.wire?.opening : undefined;
    if (opening !== undefined && prepared.wire?.streamDecoder === undefined) {
      try {
        opened = await readOpening(response.body, opening);
      } catch (err) {
        return this.broken(record, run, attempt, err, status, true);
      }
    }
    const tooLong = opened.verdict === 'too_long';
    closeAttempt(
      attempt,
      record.elapsedMs(),
      status,
      tooLong ? 'http_error' : 'ok',
      tooLong ? TOO_LONG : undefined,
    );
    // A refusal in the opening is whole (the stream ended with it): settled as an error answer.
    if (tooLong) this.settler.settle(record, attempt, 'http_error');
    const call: UpstreamCall = {
      providerId: attempt.providerId,
      response,
      body: null,
      stream: opened.stream,
      prepared,
      attempt,
    };
    return tooLong ? { miss: { kind: 'too_long', answer: call } } : { call };
  }

  /** The connection or the body broke: the next candidate, unless no other is worth a try (thrown). */
  private broken(
    record: RequestRecord,
    run: UpstreamRun,
    attempt: UpstreamAttempt,
    err: unknown,
    status: number,
    afterHeaders: boolean,
  ): GatewayError {
    const failure = classifyUpstreamError(err, run.abort.signal, afterHeaders);
    closeAttempt(attempt, record.elapsedMs(), status, failure.outcome);
    this.settler.settle(record, attempt, failure.outcome);
    // The deadline passed or the client left: no other provider, nor model, is worth a try.
    if (!failure.retriable) throw failure.error;
    return failure.error;
  }

  /**
   * The provider refused the gateway's credentials: a provider failure like a 5xx (the next
   * candidate is tried), logged with the vendor's words, and sampled with them so the router marks
   * the provider down fleet-wide until a probe passes.
   */
  private refused(
    record: RequestRecord,
    attempt: UpstreamAttempt,
    status: number,
    words: string,
  ): GatewayError {
    const reason = words === '' ? 'credentials refused' : `credentials refused: ${words}`;
    closeAttempt(attempt, record.elapsedMs(), status, 'http_error', reason);
    this.settler.settle(record, attempt, 'http_error', { refusal: words });
    return credentialsRefused();
  }
}

const headerString = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
