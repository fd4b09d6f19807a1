import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COGNITIVE_SERVICES_AUDIENCE, newSigningKey, signJwt } from './jwt.js';

/** The self-signed certificate the mock serves (CN and SAN 127.0.0.1); trust it with NODE_EXTRA_CA_CERTS. */
export const MOCK_ENTRA_CA_FILE = fileURLToPath(new URL('./tls-cert.pem', import.meta.url));
const KEY_FILE = fileURLToPath(new URL('./tls-key.pem', import.meta.url));

export interface MockEntraOptions {
  readonly tenantId?: string;
  readonly clientId?: string;
  /** The client secret it accepts (client credentials grant with a secret). */
  readonly clientSecret?: string;
  /** The client assertion it accepts (workload identity federation: the projected service account token). */
  readonly federatedToken?: string;
  /** Lifetime of the access tokens it issues. */
  readonly tokenLifetimeSeconds?: number;
}

/** One access token it issued. */
export interface IssuedToken {
  readonly token: string;
  readonly grant: 'client_secret' | 'client_assertion';
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

export interface MockEntra {
  /** The authority host, as AZURE_AUTHORITY_HOST takes it (https, 127.0.0.1). */
  readonly url: string;
  readonly tenantId: string;
  readonly clientId: string;
  /** Public keys (SPKI PEM) its tokens are signed with, for the resource to trust. */
  readonly signingKeys: readonly string[];
  readonly issued: readonly IssuedToken[];
  /** Token requests refused, and why (Entra's error code). */
  readonly refusals: readonly string[];
  setTokenLifetime(seconds: number): void;
  /** Refuses every token request (as for a revoked secret) until called with false. */
  refuseAll(refuse: boolean): void;
  /** The environment a gateway needs to get tokens here with a client secret. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/**
 * A stand-in for Microsoft Entra ID's v2 endpoints, over HTTPS as MSAL requires: OpenID discovery
 * (`/{tenant}/v2.0/.well-known/openid-configuration`), the JWKS, and the token endpoint
 * (`/{tenant}/oauth2/v2.0/token`, client credentials grant with a secret or a client assertion),
 * issuing RS256 access tokens for https://cognitiveservices.azure.com.
 */
export async function startMockEntra(options: MockEntraOptions = {}): Promise<MockEntra> {
  const tenantId = options.tenantId ?? '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const clientId = options.clientId ?? '0c3a7b1e-5a3b-4f52-9f5e-4a5e3c1d2b10';
  const clientSecret = options.clientSecret ?? 'mock-entra-secret';
  const key = newSigningKey('mock-entra-key-1');
  const state = {
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    refuse: false,
    issued: [] as IssuedToken[],
    refusals: [] as string[],
  };
  const server = createServer(
    { cert: readFileSync(MOCK_ENTRA_CA_FILE), key: readFileSync(KEY_FILE) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) =>
          json(res, 500, { error: 'server_error', error_description: String(err) }),
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const issuer = `${url}/${tenantId}/v2.0`;
    if (req.method === 'GET' && path === `/${tenantId}/v2.0/.well-known/openid-configuration`) {
      return json(res, 200, {
        issuer,
        token_endpoint: `${url}/${tenantId}/oauth2/v2.0/token`,
        authorization_endpoint: `${url}/${tenantId}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${url}/${tenantId}/oauth2/v2.0/logout`,
        jwks_uri: `${url}/${tenantId}/discovery/v2.0/keys`,
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: [
          'client_secret_post',
          'private_key_jwt',
          'client_secret_basic',
        ],
      });
    }
    if (req.method === 'GET' && path === `/${tenantId}/discovery/v2.0/keys`) {
      const jwk = { ...key.privateKey.export({ format: 'jwk' }) } as Record<string, unknown>;
      return json(res, 200, { keys: [{ kty: 'RSA', use: 'sig', kid: key.kid, n: jwk.n, e: jwk.e }] });
    }
    if (req.method === 'POST' && path === `/${tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(raw);
      const refuse = (status: number, error: string, code: string, description: string): void => {
        state.refusals.push(code);
        json(res, status, {
          error,
          error_description: `${code}: ${description} Trace ID: ${randomUUID()} Correlation ID: ${randomUUID()} Timestamp: ${new Date().toISOString()}`,
          error_codes: [Number(code.slice(5))],
          timestamp: new Date().toISOString(),
          trace_id: randomUUID(),
          correlation_id: randomUUID(),
        });
      };
      if (form.get('grant_type') !== 'client_credentials')
        return refuse(
          400,
          'unsupported_grant_type',
          'AADSTS70003',
          'The app requested an unsupported grant type.',
        );
      if (form.get('client_id') !== clientId)
        return refuse(
          400,
          'unauthorized_client',
          'AADSTS700016',
          `Application with identifier '${form.get('client_id')}' was not found in the directory.`,
        );
      const scope = form.get('scope') ?? '';
      if (!scope.split(' ').includes(`${COGNITIVE_SERVICES_AUDIENCE}/.default`))
        return refuse(
          400,
          'invalid_scope',
          'AADSTS70011',
          `The provided value for the input parameter 'scope' is not valid.`,
        );
      let grant: IssuedToken['grant'];
      if (form.get('client_secret') !== null) {
        if (state.refuse || form.get('client_secret') !== clientSecret)
          return refuse(401, 'invalid_client', 'AADSTS7000215', 'Invalid client secret provided.');
        grant = 'client_secret';
      } else if (form.get('client_assertion') !== null) {
        const assertionOk =
          form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
          options.federatedToken !== undefined &&
          form.get('client_assertion') === options.federatedToken;
        if (state.refuse || !assertionOk)
          return refuse(
            401,
            'invalid_client',
            'AADSTS700213',
            'No matching federated identity record found for presented assertion.',
          );
        grant = 'client_assertion';
      } else {
        return refuse(
          401,
          'invalid_client',
          'AADSTS7000216',
          "'client_assertion', 'client_secret' or 'request' is required.",
        );
      }
      const now = Math.floor(Date.now() / 1000);
      const lifetime = state.lifetimeSeconds;
      const token = await signJwt(key, {
        aud: COGNITIVE_SERVICES_AUDIENCE,
        iss: `https://sts.windows.net/${tenantId}/`,
        iat: now,
        nbf: now,
        exp: now + lifetime,
        appid: clientId,
        tid: tenantId,
        oid: randomUUID(),
        jti: randomUUID(),
      });
      state.issued.push({ token, grant, issuedAtMs: now * 1000, expiresAtMs: (now + lifetime) * 1000 });
      return json(res, 200, {
        token_type: 'Bearer',
        expires_in: lifetime,
        ext_expires_in: lifetime,
        access_token: token,
      });
    }
    json(res, 404, { error: 'not_found', error_description: `No route for ${req.method} ${path}` });
  }

  return {
    url,
    tenantId,
    clientId,
    signingKeys: [key.publicKeyPem],
    get issued() {
      return state.issued;
    },
    get refusals() {
      return state.refusals;
    },
    setTokenLifetime: (seconds) => (state.lifetimeSeconds = seconds),
    refuseAll: (refuse) => (state.refuse = refuse),
    env: () => ({
      AZURE_AUTHORITY_HOST: url,
      AZURE_TENANT_ID: tenantId,
      AZURE_CLIENT_ID: clientId,
      AZURE_CLIENT_SECRET: clientSecret,
      NODE_EXTRA_CA_CERTS: MOCK_ENTRA_CA_FILE,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
