import { type Dispatcher } from 'undici';
import { type GatewayError } from '#libs/protocol';
import { type UpstreamAttempt } from '../logs/upstream-attempt.js';
import { type PreparedAttempt } from './request-plan.js';
import { CLIENT_GONE, TOTAL_DEADLINE } from './upstream-failure.js';

/** What is read of an upstream answer besides its body: a buffered one's or undici's. */
export type ResponseHead = Pick<Dispatcher.ResponseData, 'statusCode' | 'headers'>;

/** The answer of the attempt that won (or, after a refusal as too long, of the last one). */
export interface UpstreamCall {
  readonly providerId: string;
  readonly response: ResponseHead;
  /** Non-stream: the whole body, read inside the attempt (so a broken body still fails over). */
  readonly body: Buffer | null;
  /** Stream: the upstream's bytes to relay, from the first (an opening read ahead included). */
  readonly stream: AsyncIterable<Uint8Array> | null;
  /** The upstream request that was sent: native or translated, and how to read its answer. */
  readonly prepared: PreparedAttempt;
  /** The attempt it answered: settled already, unless it is a stream handed to the client. */
  readonly attempt: UpstreamAttempt;
}

/** Why a model did not answer, when another model may: what its fallbacks are chosen by. */
export type ModelMiss =
  /** No provider of it answered: none healthy, each at its limit, or each failed before a byte. */
  | { readonly kind: 'unavailable'; readonly error: GatewayError }
  /** A provider refused the prompt as too long for the model's window: its answer, read whole. */
  | { readonly kind: 'too_long'; readonly answer: UpstreamCall };

/** What one model's candidates (or one of them) came to. */
export type ModelOutcome = { readonly call: UpstreamCall } | { readonly miss: ModelMiss };

const expire = (abort: AbortController): void => abort.abort(TOTAL_DEADLINE);

/**
 * What the failover returns for one request: the answer (or the error when none came), every
 * attempt in order, the model that answered (a fallback's once the request fell back), and the
 * request's upstream deadline and abort signal, which outlive the call while a stream is relayed.
 */
export class UpstreamRun {
  /** Aborted by the request's total deadline and by the client's hang-up. */
  readonly abort = new AbortController();
  private readonly deadline: NodeJS.Timeout;
  readonly attempts: UpstreamAttempt[] = [];
  answer: UpstreamCall | null = null;
  error: GatewayError | null = null;
  /** Its candidates were ordered by the request's agent session. */
  sessionRouted = false;

  constructor(
    /** The model being tried: the request's, then each fallback taken. */
    public model: string,
    /** Read a stream's opening ahead (`WireFormat.opening`): a too-long refusal there may fall back. */
    readonly readsOpening: boolean,
    totalTimeoutMs: number,
  ) {
    this.deadline = setTimeout(expire, totalTimeoutMs, this.abort);
  }

  /** The client hung up: the upstream stops (its generation is billed to nobody). */
  cancel(): void {
    this.abort.abort(CLIENT_GONE);
  }

  /** The request is done with the upstream: the deadline no longer applies. */
  stopDeadline(): void {
    clearTimeout(this.deadline);
  }
}
