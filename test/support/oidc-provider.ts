import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID Connect provider (panva's oidc-provider) on 127.0.0.1 for the SSO tests: discovery,
 * JWKS, authorization code with PKCE required, client_secret_basic at the token endpoint. Its login
 * page checks an email and a password like an IdP's (no dev interactions that accept anyone), and
 * grants a first-party client without a consent screen, as a company IdP does for its own apps.
 */

export interface TestAccount {
  readonly password: string;
  readonly email: string;
  readonly emailVerified?: boolean;
  readonly roles?: readonly string[];
  readonly groups?: readonly string[];
  readonly teams?: readonly string[];
  /**
   * Claims its ID token carries instead of the ones above, as a misconfigured or hostile provider
   * would send them (`email_verified: "false"`, an email with a NUL); undefined leaves one out.
   */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** How the next token response's ID token is altered before it leaves the provider. */
export type IdTokenFault =
  /** The payload changed (another email) under the original signature. */
  | 'tampered-signature'
  /** Signed by the provider's key for another client. */
  | 'wrong-audience'
  /** Signed by the provider's key, expired an hour ago. */
  | 'expired'
  /** Signed by the provider's key with a nonce the relying party never sent. */
  | 'wrong-nonce'
  /** Signed by a key the provider never had (an attacker's), under a kid it never published. */
  | 'unknown-key'
  /** Signed by an attacker's key under the kid of the provider's current key. */
  | 'unknown-key-known-kid'
  /** Signed by a key `retireOldSigningKeys` took out of the JWKS, under its own kid. */
  | 'retired-key';

export interface TestOidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: Map<string, TestAccount>;
  /** Registers the console as the provider's client, redirecting to this URI only. */
  registerClient(redirectUri: string): void;
  /** The next ID token the token endpoint issues gets this fault (once). */
  injectIdTokenFault(fault: IdTokenFault): void;
  /** Token requests the provider answered (each redeems one code). */
  readonly tokenRequests: () => number;
  /** Requests to the JWKS endpoint (what a relying party's key fetches cost the provider). */
  readonly jwksRequests: () => number;
  /** The kid of the key that signed the last ID token the token endpoint issued. */
  readonly lastIdTokenKid: () => string | undefined;
  /** The kid the provider signs with now. */
  readonly signingKid: () => string;
  /**
   * Signs with a new key (a new kid) from now on and publishes it first in the JWKS; the previous
   * keys stay published for tokens already issued, as IdPs keep a retired key for a grace period.
   * Returns the new kid. Call it between sign-ins: one under way is forgotten (a new Provider).
   */
  rotateSigningKey(): Promise<string>;
  /** Ends the grace period: the JWKS publishes the current signing key alone. Between sign-ins too. */
  retireOldSigningKeys(): void;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  readonly jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

const kidOf = (generation: number): string => `test-signing-key-${generation}`;
const SCOPE_CLAIMS = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name'],
  groups: ['groups', 'roles', 'teams'],
};

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, error: string | null): string {
  return `<!doctype html><html><head><title>Test IdP sign-in</title></head><body>
<h1>Test IdP</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>IdP email <input name="login" type="email" required></label>
<label>IdP password <input name="password" type="password" required></label>
<button type="submit">Continue</button></form></body></html>`;
}

/**
 * Listens at once (the issuer is known before the console starts); the client is registered with
 * its redirect URI by `registerClient`, once the console's address is known.
 */
export async function startOidcProvider(opts: {
  readonly accounts: Readonly<Record<string, TestAccount>>;
}): Promise<TestOidcProvider> {
  // Newest first: oidc-provider signs with the first key that fits, the JWKS publishes them all.
  let published: SigningKey[] = [await signingKey(kidOf(1))];
  let retired: SigningKey[] = [];
  let generation = 1;
  // Generated once a test asks for it: a key pair the provider never had.
  let attackerKey: SigningKey | null = null;
  const accounts = new Map(Object.entries(opts.accounts));
  const clientId = 'model-gateway-console';
  const clientSecret = randomBytes(24).toString('base64url');
  let fault: IdTokenFault | null = null;
  let tokenRequests = 0;
  let jwksRequests = 0;
  let lastIdTokenKid: string | undefined;
  let redirectUris: readonly string[] | null = null;

  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;

  const configuration = (redirectUris: readonly string[]): Configuration => ({
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...redirectUris],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: published.map((k) => k.jwk) },
    pkce: { required: () => true },
    // Scope claims in the ID token itself, as Okta, Entra ID, Google and Keycloak put them.
    conformIdTokenClaims: false,
    claims: SCOPE_CLAIMS,
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    ttl: {
      AuthorizationCode: 60,
      IdToken: 3600,
      AccessToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => {
          const claims: Record<string, unknown> = {
            sub: id,
            email: account.email,
            email_verified: account.emailVerified ?? true,
            name: id,
            ...(account.roles ? { roles: [...account.roles] } : {}),
            ...(account.groups ? { groups: [...account.groups] } : {}),
            ...(account.teams ? { teams: [...account.teams] } : {}),
            ...account.claims,
          };
          for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
          return claims as { sub: string };
        },
      };
    },
    // A first-party client: the scopes it asks are granted without a consent screen.
    loadExistingGrant: async (ctx) => {
      const { Grant } = ctx.oidc.provider;
      const existing = ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (existing) return Grant.find(existing);
      const grant = new Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope(Object.keys(SCOPE_CLAIMS).join(' '));
      await grant.save();
      return grant;
    },
  });
  let provider: Provider | null = null;

  const resign = async (
    idToken: string,
    change: (p: JWTPayload) => JWTPayload,
    key: Pick<SigningKey, 'kid' | 'privateKey'> = published[0]!,
  ): Promise<string> =>
    new SignJWT(change(decodeJwt(idToken)))
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .sign(key.privateKey);
  const attacker = async (): Promise<SigningKey> => (attackerKey ??= await signingKey('attacker-key-1'));

  async function alter(idToken: string, f: IdTokenFault): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    switch (f) {
      case 'tampered-signature': {
        const [header, , signature] = idToken.split('.');
        const forged = { ...decodeJwt(idToken), email: 'admin@example.com' };
        return `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
      }
      case 'wrong-audience':
        return resign(idToken, (p) => ({ ...p, aud: 'another-application' }));
      case 'expired':
        return resign(idToken, (p) => ({ ...p, iat: now - 7200, exp: now - 3600 }));
      case 'wrong-nonce':
        return resign(idToken, (p) => ({ ...p, nonce: 'a-nonce-the-console-never-sent' }));
      case 'unknown-key':
        return resign(idToken, (p) => p, await attacker());
      case 'unknown-key-known-kid':
        return resign(idToken, (p) => p, {
          kid: published[0]!.kid,
          privateKey: (await attacker()).privateKey,
        });
      case 'retired-key': {
        const old = retired[0];
        if (!old) throw new Error("'retired-key' needs a key retired by retireOldSigningKeys()");
        return resign(idToken, (p) => p, old);
      }
    }
  }

  // After the token endpoint built its answer, before it is serialized.
  const faultInjection = async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route === 'jwks') jwksRequests++;
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    tokenRequests++;
    const body = ctx.body as { id_token?: string };
    if (fault && body.id_token) {
      body.id_token = await alter(body.id_token, fault);
      fault = null;
    }
    if (body.id_token) lastIdTokenKid = decodeProtectedHeader(body.id_token).kid;
  };

  async function interaction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const uid = req.url!.split('/')[2]!.split('?')[0]!;
    if (req.method === 'GET') {
      await provider.interactionDetails(req, res);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(uid, null));
      return;
    }
    const form = await formBody(req);
    const login = form.get('login') ?? '';
    const account = [...accounts.entries()].find(([, a]) => a.email === login);
    if (!account || account[1].password !== form.get('password')) {
      res
        .writeHead(401, { 'content-type': 'text/html; charset=utf-8' })
        .end(loginPage(uid, 'Wrong email or password.'));
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account[0] } },
      { mergeWithLastSubmission: false },
    );
  }

  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null = null;
  // oidc-provider reads its keys once, from its configuration: a new key set is a new Provider
  // behind the same server and issuer, with the same client and accounts. Its in-memory store is
  // its own, so sign-ins under way (interactions, codes, IdP sessions) do not survive a rotation:
  // rotate between sign-ins.
  const mount = (): void => {
    if (!redirectUris) return;
    provider = new Provider(issuer, configuration(redirectUris));
    provider.use(faultInjection);
    handle = provider.callback() as unknown as typeof handle;
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!provider || !handle) res.writeHead(503).end('no client registered yet');
    else if (req.url?.startsWith('/interaction/'))
      interaction(provider, req, res).catch((err: unknown) => {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      });
    else void handle(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    registerClient: (redirectUri) => {
      redirectUris = [redirectUri];
      mount();
    },
    injectIdTokenFault: (f) => {
      fault = f;
    },
    tokenRequests: () => tokenRequests,
    jwksRequests: () => jwksRequests,
    lastIdTokenKid: () => lastIdTokenKid,
    signingKid: () => published[0]!.kid,
    rotateSigningKey: async () => {
      published = [await signingKey(kidOf(++generation)), ...published];
      mount();
      return published[0]!.kid;
    },
    retireOldSigningKeys: () => {
      retired = [...retired, ...published.slice(1)];
      published = published.slice(0, 1);
      mount();
    },
    // Idempotent: a test may stop the provider to see the console without it.
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
