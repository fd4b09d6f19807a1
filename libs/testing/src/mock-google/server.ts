import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newSigningKey, signJwt } from '../mock-entra/jwt.js';
import {
  assertionClaims,
  CLOUD_PLATFORM_SCOPE,
  GOOGLE_API_AUDIENCE,
  GOOGLE_TOKEN_URL,
  unverifiedClaims,
} from './tokens.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const METADATA_TOKEN = '/computeMetadata/v1/instance/service-accounts/default/token';

export type GoogleGrant = 'service_account' | 'workload_identity_federation' | 'metadata_server';

/** One access token the mock issued. */
export interface IssuedGoogleToken {
  readonly token: string;
  readonly grant: GoogleGrant;
  readonly principal: string;
  readonly scope: string;
  readonly issuedAtMs: number;
  /** When the token stops being accepted (its `exp`, whole seconds). */
  readonly expiresAtMs: number;
}

/** A service-account key file as the Cloud console downloads it (`type: service_account`). */
export interface ServiceAccountKey {
  readonly type: 'service_account';
  readonly project_id: string;
  readonly private_key_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly client_id: string;
  readonly auth_uri: string;
  readonly token_uri: string;
  readonly universe_domain: 'googleapis.com';
}

export interface MockGoogleOptions {
  readonly projectId?: string;
  /** Lifetime of the access tokens it issues (Google's: 3600 s). */
  readonly tokenLifetimeSeconds?: number;
  /** The workload identity pool provider an external account exchanges its token at. */
  readonly poolAudience?: string;
  /** The subject token (an OIDC token from the workload's platform) the STS endpoint accepts. */
  readonly federatedToken?: string;
}

export interface MockGoogle {
  /** `http://127.0.0.1:<port>`: the token endpoint is `/token`, STS `/v1/token`, the metadata server the root. */
  readonly url: string;
  /** `127.0.0.1:<port>`, as `GCE_METADATA_HOST` takes it. */
  readonly metadataHost: string;
  readonly projectId: string;
  /** Public keys (SPKI PEM) its access tokens are signed with: what Vertex's stand-in trusts. */
  readonly signingKeys: readonly string[];
  readonly issued: readonly IssuedGoogleToken[];
  /** Token requests refused, with Google's `error_description`. */
  readonly refusals: readonly string[];
  /** A new service account (an RSA key generated now) whose JWT-bearer assertions the token endpoint accepts. */
  newServiceAccount(name?: string): ServiceAccountKey;
  /**
   * A workload identity federation credential configuration (`type: external_account`), reading
   * the subject token from `tokenFile`, exchanging it at this mock's STS endpoint (`token_url`).
   */
  externalAccount(tokenFile: string): Record<string, unknown>;
  setTokenLifetime(seconds: number): void;
  /** Refuses every token request (a disabled service account, a deleted pool) until called with false. */
  refuseAll(refuse: boolean): void;
  close(): Promise<void>;
}

/**
 * A stand-in for Google's identity endpoints, each as google-auth-library calls it: the OAuth 2.0
 * token endpoint (`POST /token`, a service account's JWT-bearer grant: the assertion's signature
 * checked against the account's key, its audience, scope and lifetime), the Security Token
 * Service (`POST /v1/token`, workload identity federation's token exchange) and the metadata
 * server (`GET /computeMetadata/v1/...` with `Metadata-Flavor: Google`, as on GCE and GKE
 * workload identity). Access tokens are RS256 JWTs for Google's APIs, carrying their scope.
 */
export async function startMockGoogle(options: MockGoogleOptions = {}): Promise<MockGoogle> {
  const projectId = options.projectId ?? 'mock-project';
  const poolAudience =
    options.poolAudience ??
    '//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/gateway/providers/k8s';
  const key = newSigningKey('mock-google-key-1');
  const accounts = new Map<string, string>(); // client_email -> public key PEM
  const state = {
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    refuse: false,
    issued: [] as IssuedGoogleToken[],
    refusals: [] as string[],
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) =>
        json(res, 500, { error: 'internal', error_description: String(err) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  async function issue(
    grant: GoogleGrant,
    principal: string,
    scope: string,
  ): Promise<Record<string, unknown>> {
    const nowMs = Date.now();
    const now = Math.floor(nowMs / 1000);
    const exp = now + state.lifetimeSeconds;
    const token = await signJwt(key, {
      iss: url,
      aud: GOOGLE_API_AUDIENCE,
      sub: principal,
      scope,
      iat: now,
      exp,
      jti: randomUUID(),
    });
    state.issued.push({ token, grant, principal, scope, issuedAtMs: nowMs, expiresAtMs: exp * 1000 });
    // Whole seconds left, rounded down as Google does (3599): a client never thinks it valid longer than it is.
    return { access_token: token, expires_in: Math.floor(exp - nowMs / 1000), token_type: 'Bearer' };
  }

  function refuse(res: ServerResponse, status: number, error: string, description: string): void {
    state.refusals.push(description);
    json(res, status, { error, error_description: description });
  }

  /** A service account's JWT-bearer grant, checked as Google's token endpoint checks it. */
  async function jwtBearer(res: ServerResponse, assertion: string): Promise<void> {
    const email = unverifiedClaims(assertion)?.iss;
    const pem = typeof email === 'string' ? accounts.get(email) : undefined;
    if (pem === undefined) return refuse(res, 400, 'invalid_grant', 'Invalid grant: account not found');
    const claims = await assertionClaims(assertion, pem);
    if (claims === null) return refuse(res, 400, 'invalid_grant', 'Invalid JWT Signature.');
    if (state.refuse) return refuse(res, 400, 'invalid_grant', 'Invalid grant: account not found');
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp, aud, scope } = claims;
    if (
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp <= now ||
      exp - iat > 3600 ||
      iat > now + 300
    )
      return refuse(
        res,
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    if (aud !== GOOGLE_TOKEN_URL && aud !== `${url}/token`)
      return refuse(res, 400, 'invalid_grant', 'Invalid JWT: Failed audience check.');
    if (typeof scope !== 'string' || scope.trim() === '')
      return refuse(res, 400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    json(res, 200, await issue('service_account', email as string, scope));
  }

  /** Workload identity federation: the platform's token exchanged for a federated access token. */
  async function tokenExchange(res: ServerResponse, form: URLSearchParams): Promise<void> {
    if (form.get('audience') !== poolAudience)
      return refuse(
        res,
        400,
        'invalid_target',
        'The target service indicated by the "audience" parameters is invalid.',
      );
    if (form.get('requested_token_type') !== ACCESS_TOKEN_TYPE)
      return refuse(res, 400, 'invalid_request', 'Invalid value for "requested_token_type".');
    const subject = form.get('subject_token');
    if (state.refuse || options.federatedToken === undefined || subject !== options.federatedToken)
      return refuse(res, 400, 'invalid_grant', 'The provided subject token is not valid.');
    const scope = (form.get('scope') ?? '').split(/[ ,]/).filter(Boolean).join(' ') || CLOUD_PLATFORM_SCOPE;
    json(res, 200, {
      ...(await issue('workload_identity_federation', poolAudience, scope)),
      issued_token_type: ACCESS_TOKEN_TYPE,
    });
  }

  async function metadata(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    const flavour = { 'metadata-flavor': 'Google' };
    if (req.headers['metadata-flavor'] !== 'Google') {
      // The metadata server's own answer to a request without the header (a proxied SSRF guard).
      res.writeHead(403, { ...flavour, 'content-type': 'text/html' });
      res.end('Missing required header: Metadata-Flavor');
      return;
    }
    if (path === METADATA_TOKEN) {
      if (state.refuse) {
        state.refusals.push('metadata server: no service account');
        res.writeHead(404, { ...flavour, 'content-type': 'text/html' });
        res.end('Not Found');
        return;
      }
      const scope = (query.get('scopes') ?? CLOUD_PLATFORM_SCOPE).split(',').join(' ');
      const principal = `${projectId}.svc.id.goog[gateway/model-gateway]`;
      return json(res, 200, await issue('metadata_server', principal, scope), flavour);
    }
    const texts: Record<string, string> = {
      '/computeMetadata/v1/instance': '',
      '/computeMetadata/v1/instance/': '',
      '/computeMetadata/v1/project/project-id': projectId,
      '/computeMetadata/v1/universe/universe-domain': 'googleapis.com',
      '/computeMetadata/v1/instance/service-accounts/default/email': `${projectId}.svc.id.goog`,
    };
    const text = texts[path];
    res.writeHead(text === undefined ? 404 : 200, { ...flavour, 'content-type': 'application/text' });
    res.end(text ?? 'Not Found');
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const [path = '/', search = ''] = (req.url ?? '/').split('?', 2);
    if (path.startsWith('/computeMetadata/')) return metadata(req, res, path, new URLSearchParams(search));
    if (req.method !== 'POST' || (path !== '/token' && path !== '/v1/token'))
      return json(res, 404, { error: 'not_found', error_description: `No route for ${req.method} ${path}` });
    const form = new URLSearchParams(raw);
    const grant = form.get('grant_type');
    if (path === '/token' && grant === JWT_BEARER) return jwtBearer(res, form.get('assertion') ?? '');
    if (path === '/v1/token' && grant === TOKEN_EXCHANGE) return tokenExchange(res, form);
    refuse(res, 400, 'unsupported_grant_type', `Invalid grant_type: ${grant ?? ''}`);
  }

  return {
    url,
    metadataHost: `127.0.0.1:${port}`,
    projectId,
    signingKeys: [key.publicKeyPem],
    get issued() {
      return state.issued;
    },
    get refusals() {
      return state.refusals;
    },
    newServiceAccount(name = 'model-gateway') {
      const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const email = `${name}@${projectId}.iam.gserviceaccount.com`;
      accounts.set(email, pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
      return {
        type: 'service_account',
        project_id: projectId,
        private_key_id: randomUUID().replaceAll('-', ''),
        private_key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: email,
        client_id: String(100_000_000_000_000_000_000n + BigInt(accounts.size)),
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: `${url}/token`,
        universe_domain: 'googleapis.com',
      };
    },
    externalAccount: (tokenFile) => ({
      type: 'external_account',
      audience: poolAudience,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${url}/v1/token`,
      credential_source: { file: tokenFile },
      universe_domain: 'googleapis.com',
    }),
    setTokenLifetime: (seconds) => (state.lifetimeSeconds = seconds),
    refuseAll: (refuse) => (state.refuse = refuse),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
