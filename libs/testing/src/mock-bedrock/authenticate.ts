import type { IncomingMessage } from 'node:http';
import { awsError, type AwsReply } from './errors.js';
import { type MockAwsCredential, verifySigV4 } from './sigv4.js';

/** Who an endpoint of the mock (Runtime, control plane) lets in: the same account on both. */
export interface MockIdentities {
  readonly region: string;
  /** The IAM key pairs it knows. */
  readonly known: readonly MockAwsCredential[];
  /** The Bedrock API keys it takes as `Authorization: Bearer`. */
  readonly apiKeys: ReadonlySet<string>;
  readonly now?: (() => Date) | undefined;
}

/**
 * Authenticates a request as Bedrock's endpoints do: a Bedrock API key as a bearer token, else a
 * SigV4 signature (service `bedrock`, this region) recomputed and checked. Null when it holds;
 * else AWS's 403.
 */
export async function authenticate(
  ids: MockIdentities,
  req: IncomingMessage,
  url: URL,
  raw: Buffer,
): Promise<AwsReply | null> {
  const auth = req.headers.authorization ?? '';
  if (auth.startsWith('Bearer ')) {
    return ids.apiKeys.has(auth.slice(7))
      ? null
      : awsError(
          403,
          'AccessDeniedException',
          'Authentication failed: Please make sure your API Key is valid.',
        );
  }
  return verifySigV4(
    {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: raw,
    },
    ids.known,
    ids.region,
    ids.now?.(),
  );
}
