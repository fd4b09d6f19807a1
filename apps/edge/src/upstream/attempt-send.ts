import { type ProviderRuntime } from '#libs/config';
import { type BufferedResponse, BrokenBody } from './buffered-dispatch.js';
import { answersBody, type DirectAttempt, type DirectCall } from './direct-attempt.js';
import { type PreparedAttempt } from './request-plan.js';
import { type UpstreamClient } from './upstream.client.js';

/**
 * Sends one attempt whose answer is read whole (not a stream): its one request, or every call of
 * a direct attempt (a vendor that takes fewer texts per call than the client sent). Those go out
 * at most `concurrency` at once and their answers come back as one response, so the failover
 * reads a fan-out as it reads any attempt: the first call that fails (status or connection) is
 * the attempt's answer, the calls still in flight are aborted, and no further call is sent.
 */
export function sendAttempt(
  upstream: UpstreamClient,
  provider: ProviderRuntime,
  prepared: PreparedAttempt,
  signal: AbortSignal,
): Promise<BufferedResponse> {
  const direct = prepared.direct;
  if (direct === undefined)
    return upstream.postBuffered({
      provider,
      path: prepared.path,
      headers: prepared.headers,
      body: prepared.body,
      signal,
    });
  return sendAll(upstream, provider, direct, signal);
}

interface Answer {
  readonly headers: BufferedResponse['headers'];
  readonly body: Buffer;
}

type Failure = { readonly response: BufferedResponse } | { readonly error: unknown };

async function sendAll(
  upstream: UpstreamClient,
  provider: ProviderRuntime,
  attempt: DirectAttempt,
  signal: AbortSignal,
): Promise<BufferedResponse> {
  const answers: Answer[] = [];
  // One controller per call in flight, so a failure aborts the others but not its own body.
  const inFlight = new Map<number, AbortController>();
  let failure: Failure | null = null;
  let next = 0;
  const fail = (index: number, outcome: Failure) => {
    if (failure !== null) return;
    failure = outcome;
    for (const [i, controller] of inFlight) if (i !== index) controller.abort();
  };
  const send = async (index: number, call: DirectCall): Promise<void> => {
    const controller = new AbortController();
    inFlight.set(index, controller);
    try {
      const response = await upstream.postBuffered({
        provider,
        path: call.path,
        // Its own object: the credential adds this call's signature to it.
        headers: { ...call.headers },
        body: call.body,
        signal: AbortSignal.any([signal, controller.signal]),
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        if (failure === null) return fail(index, { response });
        return void (await response.drained);
      }
      answers[index] = { headers: response.headers, body: response.body };
    } catch (error) {
      fail(index, { error: brokenAnswer(error) });
    } finally {
      inFlight.delete(index);
    }
  };
  const worker = async (): Promise<void> => {
    while (failure === null && next < attempt.calls.length) {
      const index = next++;
      await send(index, attempt.calls[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(attempt.concurrency, attempt.calls.length) }, worker));
  const failed = failure as Failure | null;
  if (failed !== null) {
    if ('error' in failed) throw failed.error;
    return failed.response;
  }
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: answersBody(answers) };
}

/**
 * What a call's broken body is to the attempt: an error answer's still is (its status is the
 * attempt's, read as a broken body), a success's is a failed call, as its connection's would be.
 */
function brokenAnswer(error: unknown): unknown {
  if (!(error instanceof BrokenBody)) return error;
  return error.statusCode >= 200 && error.statusCode < 300 ? error.cause : error;
}
