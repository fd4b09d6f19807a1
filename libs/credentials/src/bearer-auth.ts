import { type AccessToken, type RefresherOptions, TokenRefresher } from './token-refresher.js';
import { type SignableRequest, type UpstreamAuth } from './upstream-auth.js';

/**
 * A provider authenticated with a cloud's bearer token (Microsoft Entra ID, Google): the token
 * from the shared refresher as `Authorization: Bearer`, with whatever headers the platform adds
 * (`extra`, read when a token is new), answered synchronously while the token is valid: one
 * frozen headers object per token, so the hot path allocates nothing.
 */
export class BearerTokenAuth implements UpstreamAuth {
  private readonly refresher: TokenRefresher;
  private headersOf: { token: string; headers: Readonly<Record<string, string>> } | null = null;

  constructor(
    fetch: () => Promise<AccessToken>,
    options: RefresherOptions = {},
    private readonly extra: () => Readonly<Record<string, string>> = () => ({}),
  ) {
    this.refresher = new TokenRefresher(fetch, options);
  }

  get failure(): string | null {
    return this.refresher.failure;
  }

  headers(
    _req: SignableRequest,
  ): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>> {
    const token = this.refresher.valid();
    if (token !== null) return this.bearer(token);
    return this.refresher.token().then((t) => this.bearer(t));
  }

  start(): Promise<void> {
    return this.refresher.start();
  }

  close(): void {
    this.refresher.close();
  }

  private bearer(token: string): Readonly<Record<string, string>> {
    if (this.headersOf?.token !== token)
      this.headersOf = {
        token,
        headers: Object.freeze({ authorization: `Bearer ${token}`, ...this.extra() }),
      };
    return this.headersOf.headers;
  }
}
