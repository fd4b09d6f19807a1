/**
 * The seam between the gateway and a provider's credentials when a static key is not enough: a
 * bearer token from a cloud's identity platform (Microsoft Entra ID, Google ADC), or a signature
 * over each request (AWS SigV4). Built once per provider at boot; providers with a static key have
 * none (their adapter writes the key synchronously, at no extra cost).
 */

/** What a credential may read of one upstream request. A signer covers all of it. */
export interface SignableRequest {
  readonly method: string;
  /** The absolute URL, query included. */
  readonly url: string;
  /** The headers the adapter built (content type, vendor headers); not changed by the credential. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

export interface UpstreamAuth {
  /**
   * The auth headers for one request. A cached token answers synchronously (the hot path awaits
   * nothing then); a signer, or a token not fetched yet, answers with a promise. Throws (or
   * rejects with) `CredentialUnavailableError` when there is no valid credential.
   */
  headers(req: SignableRequest): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
  /** Why the last attempt to get a credential failed (null: the last one worked). For /routes and logs. */
  readonly failure: string | null;
  /** Fetches the first credential and starts refreshing it; never throws (a failure is `failure`). */
  start(): Promise<void>;
  /** Stops the background refresh. */
  close(): void;
}

/** No valid credential for a provider: a provider failure (fail over), never the client's error. */
export class CredentialUnavailableError extends Error {
  override readonly name = 'CredentialUnavailableError';
  constructor(readonly reason: string) {
    super(`no valid credential: ${reason}`);
  }
}

/**
 * A library's error as a short, stable reason: its first line up to the identity platform's
 * per-attempt details (trace and correlation IDs, timestamps), bounded, so that /routes and the
 * log show the same reason for the same fault and never a secret-bearing dump.
 */
export function failureReason(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const firstLine = raw.split('\n', 1)[0] ?? '';
  // MSAL's form: `invalid_client: Error(s): ... - Timestamp: ... - Description: AADSTS...: text Trace ID: ...`.
  const described = /\sDescription:\s*(.*)$/.exec(firstLine);
  const code = /^([a-z_]+):/.exec(firstLine)?.[1];
  const main = described ? `${code === undefined ? '' : `${code}: `}${described[1]}` : firstLine;
  const cut = main.search(/\s-?\s?(Trace ID|Correlation ID|Timestamp):/);
  const text = (cut < 0 ? main : main.slice(0, cut)).trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text || 'unknown error';
}
