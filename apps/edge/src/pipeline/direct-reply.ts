import { type ClientContext } from '#libs/providers';
import { type UpstreamCall } from '../upstream/upstream-run.js';
import { mapUpstreamFailure, upstreamRequestError } from '../upstream/upstream-failure.js';
import { type DirectAttempt, directAnswer } from '../upstream/direct-attempt.js';
import { type BodyReply, headerString } from './native-reply.js';

/**
 * A direct attempt's answer (its adapter's own translator: embeddings at a vendor of another
 * shape): the calls' answers -> the client's body, the usage from the vendor's own counts. An
 * error answer is the first call that failed, rendered in the client's shape with the provider's
 * message, as a translated answer's is.
 */
export function directBodyReply(
  attempt: DirectAttempt,
  up: UpstreamCall,
  buf: Buffer,
  ctx: ClientContext,
): BodyReply {
  const status = up.response.statusCode;
  if (status >= 400) {
    const own = up.prepared.clientError(status, buf);
    if (own !== null) throw own;
    const mapped = mapUpstreamFailure(status, headerString(up.response.headers['retry-after']));
    throw mapped !== 'passthrough' ? mapped : upstreamRequestError(status, messageOf(attempt, buf));
  }
  const { body, usage } = directAnswer(attempt, buf, ctx);
  return { status: 200, body, errorCode: null, usage };
}

function messageOf(attempt: DirectAttempt, buf: Buffer): string | null {
  try {
    return attempt.errorMessage(JSON.parse(buf.toString('utf8')));
  } catch {
    return null; // not JSON (a proxy's page): the status alone says it
  }
}
