import { GatewayError, topLevelMember } from '#libs/protocol';
import { type CanonicalUsage } from '#libs/providers';
import { type UpstreamCall } from '../upstream/upstream-run.js';
import { mapUpstreamFailure } from '../upstream/upstream-failure.js';

/** What to send for a non-stream answer of a provider of the client's own format. */
export interface BodyReply {
  readonly status: number;
  readonly body: Buffer | string;
  /** The log's error code: null for a success. */
  readonly errorCode: string | null;
  readonly usage: CanonicalUsage | null;
}

/**
 * A native answer passes byte for byte; only its usage member is parsed (the rest is walked).
 * Upstream request errors (400, 404, 422...) are already in the client's format and pass through;
 * failures of the provider or of the gateway's credentials become gateway errors (thrown).
 */
export function nativeBodyReply(up: UpstreamCall, buf: Buffer): BodyReply {
  const { statusCode, headers } = up.response;
  if (statusCode >= 400) {
    const own = up.prepared.clientError(statusCode, buf);
    if (own !== null) throw own;
    const mapped = mapUpstreamFailure(statusCode, headerString(headers['retry-after']));
    if (mapped !== 'passthrough' || !looksLikeJson(buf)) {
      throw mapped === 'passthrough'
        ? new GatewayError('upstream_error', `The provider failed (HTTP ${statusCode}).`)
        : mapped;
    }
    return { status: statusCode, body: buf, errorCode: 'upstream_request_error', usage: null };
  }
  const native = up.prepared.native!;
  let usage: CanonicalUsage | null;
  try {
    usage = native.usageOfBody(usageHolder(buf, native.usageMember));
  } catch {
    throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
  }
  return { status: statusCode, body: buf, errorCode: null, usage };
}

/** The body reduced to the member its usage is read from: only that member is parsed. */
function usageHolder(buf: Buffer, name: string | null): Record<string, unknown> {
  const value = topLevelMember(buf, name ?? '');
  return name === null || value === undefined ? {} : { [name]: value };
}

export const headerString = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v[0] : v;
const looksLikeJson = (buf: Buffer): boolean => buf.length > 0 && buf[0] === 0x7b;
