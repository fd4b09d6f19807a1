import { Readable } from 'node:stream';
import { type Dispatcher } from 'undici';
import { type ProviderRuntime } from '#libs/config';
import { answersBody, type DirectAttempt, type DirectCall } from './direct-attempt.js';
import { type PreparedAttempt } from './request-plan.js';
import { type UpstreamClient } from './upstream.client.js';

/**
 * Sends one attempt: its one request, or every call of a direct attempt (a vendor that takes
 * fewer texts per call than the client sent). Those go out at most `concurrency` at once and
 * their answers come back as one response, so the failover reads a fan-out as it reads any
 * attempt: the first call that fails (status or connection) is the attempt's answer, the calls
 * still in flight are aborted, and no further call is sent.
 */
export function sendAttempt(
  upstream: UpstreamClient,
  provider: ProviderRuntime,
  prepared: PreparedAttempt,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const direct = prepared.direct;
  if (direct === undefined)
    return upstream.post({
      provider,
      path: prepared.path,
      headers: prepared.headers,
      body: prepared.body,
      signal,
    });
  return sendAll(upstream, provider, direct, signal);
}

interface Answer {
  readonly headers: Dispatcher.ResponseData['headers'];
  readonly body: Buffer;
}

async function sendAll(
  upstream: UpstreamClient,
  provider: ProviderRuntime,
  attempt: DirectAttempt,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const answers: Answer[] = [];
  // One controller per call in flight, so a failure aborts the others but not its own body.
  const inFlight = new Map<number, AbortController>();
  let failure: { response: Dispatcher.ResponseData } | { error: unknown } | null = null;
  let next = 0;
  const fail = (index: number, outcome: { response: Dispatcher.ResponseData } | { error: unknown }) => {
    if (failure !== null) return;
    failure = outcome;
    for (const [i, controller] of inFlight) if (i !== index) controller.abort();
  };
  const send = async (index: number, call: DirectCall): Promise<void> => {
    const controller = new AbortController();
    inFlight.set(index, controller);
    try {
      const response = await upstream.post({
        provider,
        path: call.path,
        // Its own object: the credential adds this call's signature to it.
        headers: { ...call.headers },
        body: call.body,
        signal: AbortSignal.any([signal, controller.signal]),
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        if (failure === null) return fail(index, { response });
        return void (await response.body.dump().catch(() => undefined));
      }
      answers[index] = { headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
    } catch (error) {
      fail(index, { error });
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
  const failed = failure as { response: Dispatcher.ResponseData } | { error: unknown } | null;
  if (failed !== null) {
    if ('error' in failed) throw failed.error;
    return failed.response;
  }
  return bufferedResponse(answersBody(answers));
}

/**
 * The answers as a response the failover reads like an upstream's (status, headers, and the body
 * through `arrayBuffer` or `dump`). undici's body class is not public: this is a Readable of the
 * bytes with those methods, typed as undici's.
 */
function bufferedResponse(bytes: Buffer): Dispatcher.ResponseData {
  const body = Object.assign(Readable.from([bytes]), {
    arrayBuffer: () =>
      Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
    text: () => Promise.resolve(bytes.toString('utf8')),
    json: () => Promise.resolve(JSON.parse(bytes.toString('utf8')) as unknown),
    bytes: () => Promise.resolve(new Uint8Array(bytes)),
    dump: () => Promise.resolve(),
  });
  return {
    statusCode: 200,
    statusText: 'OK',
    headers: { 'content-type': 'application/json' },
    body: body as unknown as Dispatcher.ResponseData['body'],
    trailers: {},
    opaque: null,
    context: {},
  };
}
