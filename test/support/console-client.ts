/** A tiny console API client for tests: keeps the session cookie and CSRF token like a browser. */
export interface ConsoleResponse {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  readonly body: any;
  /** The session cookie value the response set, if any ('' when it cleared it). */
  readonly setSession: string | undefined;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** Sent as is (with content-type application/json unless headers say otherwise). */
  readonly raw?: string;
  /** Leave out the CSRF header even when the client holds a token. */
  readonly noCsrf?: boolean;
}

const SESSION_COOKIE = 'gw_session';

export class ConsoleClient {
  session: string | null = null;
  csrf: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly bearer: string | null = null,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<ConsoleResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.session !== null) headers.cookie = `${SESSION_COOKIE}=${this.session}`;
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    if (this.csrf && !opts.noCsrf && method !== 'GET') headers['x-csrf-token'] ??= this.csrf;
    const payload = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    const setSession =
      cookie === undefined
        ? undefined
        : decodeURIComponent(cookie.split(';')[0]!.slice(SESSION_COOKIE.length + 1));
    if (setSession !== undefined) this.session = setSession || null;
    const data = parsed as { csrfToken?: unknown } | undefined;
    if (res.ok && typeof data?.csrfToken === 'string') this.csrf = data.csrfToken;
    return { status: res.status, headers: res.headers, body: parsed, setSession };
  }

  get(path: string, opts?: RequestOptions): Promise<ConsoleResponse> {
    return this.request('GET', path, undefined, opts);
  }

  post(path: string, body?: unknown, opts?: RequestOptions): Promise<ConsoleResponse> {
    return this.request('POST', path, body, opts);
  }

  patch(path: string, body?: unknown, opts?: RequestOptions): Promise<ConsoleResponse> {
    return this.request('PATCH', path, body, opts);
  }

  async signIn(email: string, password: string): Promise<ConsoleResponse> {
    const res = await this.post('/api/auth/sign-in', { email, password });
    if (res.status !== 200)
      throw new Error(`sign-in of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  }
}
