import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { awsError, type AwsReply, signatureMismatch } from './errors.js';

/** A key pair the mock knows, as IAM would (a session token for temporary credentials). */
export interface MockAwsCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SignedRequest {
  readonly method: string;
  /** The path as sent (still percent-encoded), without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
/** How far a request's date may be from the service's clock. */
const SKEW_MS = 5 * 60 * 1000;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

const amzDate = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * Checks a request's SigV4 signature the way AWS does: the key known, the scope this region and
 * service, `X-Amz-Date` within 5 minutes of the clock, a session token matching the key's, and
 * the signature recomputed (with `@smithy/signature-v4`) over the method, path, query, signed
 * headers and the body's SHA-256. Null when it holds; else AWS's 403 and error body.
 */
export async function verifySigV4(
  req: SignedRequest,
  known: readonly MockAwsCredential[],
  region: string,
  now: Date = new Date(),
): Promise<AwsReply | null> {
  const auth = header(req.headers, 'authorization');
  if (auth === undefined)
    return awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = AUTH.exec(auth);
  if (m === null)
    return awsError(
      403,
      'IncompleteSignatureException',
      `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${auth.split(' ')[0]}`,
    );
  const [, keyId, day, scopeRegion, scopeService, signedList, signature] = m as unknown as string[];
  const credential = known.find((c) => c.accessKeyId === keyId);
  if (credential === undefined)
    return awsError(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  if (scopeService !== 'bedrock')
    return awsError(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to correct service: 'bedrock'.`,
    );
  if (scopeRegion !== region)
    return awsError(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to a valid region. (scoped to '${scopeRegion}', this endpoint is '${region}')`,
    );
  const dateText = header(req.headers, 'x-amz-date') ?? '';
  const d = AMZ_DATE.exec(dateText);
  if (d === null || !signedList!.split(';').includes('x-amz-date'))
    return awsError(
      403,
      'IncompleteSignatureException',
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  const signedAt = new Date(Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!));
  if (signedAt.getTime() < now.getTime() - SKEW_MS)
    return awsError(
      403,
      'InvalidSignatureException',
      `Signature expired: ${dateText} is now earlier than ${amzDate(new Date(now.getTime() - SKEW_MS))} (${amzDate(now)} - 5 min.)`,
    );
  if (signedAt.getTime() > now.getTime() + SKEW_MS)
    return awsError(
      403,
      'InvalidSignatureException',
      `Signature not yet current: ${dateText} is still later than ${amzDate(new Date(now.getTime() + SKEW_MS))} (${amzDate(now)} + 5 min.)`,
    );
  if (dateText.slice(0, 8) !== day) return signatureMismatch();
  const token = header(req.headers, 'x-amz-security-token');
  if ((credential.sessionToken ?? undefined) !== token)
    return awsError(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  const claimedHash = header(req.headers, 'x-amz-content-sha256');
  if (claimedHash !== undefined && claimedHash !== createHash('sha256').update(req.body).digest('hex'))
    return signatureMismatch();
  const recomputed = await recompute(req, credential, region, signedList!.split(';'), signedAt);
  const a = Buffer.from(recomputed);
  const b = Buffer.from(signature!);
  return a.length === b.length && timingSafeEqual(a, b) ? null : signatureMismatch();
}

async function recompute(
  req: SignedRequest,
  credential: MockAwsCredential,
  region: string,
  signed: readonly string[],
  signedAt: Date,
): Promise<string> {
  // Only the headers the client signed; the signer regenerates the date and the token.
  const headers: Record<string, string> = {};
  for (const name of signed) {
    if (name === 'x-amz-date' || name === 'x-amz-security-token' || name === 'x-amz-content-sha256') continue;
    const value = header(req.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of req.query) query[k] = v;
  const signer = new SignatureV4({
    credentials: credential,
    region,
    service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: signed.includes('x-amz-content-sha256'),
  });
  const out = await signer.sign(
    {
      method: req.method,
      protocol: 'https:',
      hostname: headers.host ?? 'localhost',
      path: req.path,
      query,
      headers,
      body: req.body,
    },
    { signingDate: signedAt },
  );
  const auth = String(out.headers.authorization ?? out.headers.Authorization ?? '');
  return /Signature=([0-9a-f]{64})$/.exec(auth)?.[1] ?? '';
}
