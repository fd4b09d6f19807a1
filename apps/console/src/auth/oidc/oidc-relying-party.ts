import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { type ConsoleSettings } from '../../console-settings.js';
import { SETTINGS } from '../../tokens.js';
import { type OidcSettings } from './oidc-settings.js';

/** Seconds any call to the provider (discovery, token, JWKS) may take. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** What the start route keeps server-side and sends to the provider. */
export interface AuthorizationRequest {
  readonly url: URL;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/**
 * The console as an OpenID Connect relying party, all protocol work done by openid-client:
 * discovery (cached once it succeeds; a failed one is retried at the next sign-in), PKCE (S256),
 * state and nonce, and the ID token's validation (signature against the provider's JWKS, cached
 * up to 5 minutes and refetched when a token names a key not in a copy older than a minute, so a
 * rotation is followed; issuer, audience, azp, expiry and issued-at within the clock tolerance, nonce).
 */
@Injectable()
export class OidcRelyingParty {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(@Inject(SETTINGS) private readonly consoleSettings: ConsoleSettings) {}

  private get settings(): OidcSettings {
    const s = this.consoleSettings.oidc;
    if (!s) throw new Error('OIDC is not configured');
    return s;
  }

  async authorizationRequest(): Promise<AuthorizationRequest> {
    const config = await this.config();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl,
      scope: this.settings.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /**
   * Redeems the code of a callback whose query is `query` and returns the validated ID token's
   * claims. Throws openid-client's errors (classified by oidc-errors.ts).
   */
  async redeem(
    query: URLSearchParams,
    checks: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<Readonly<Record<string, unknown>>> {
    const config = await this.config();
    // The registered redirect URL with the provider's parameters: openid-client sends it as the
    // token request's redirect_uri, which must equal the authorization request's.
    const current = new URL(this.settings.redirectUrl);
    current.search = query.toString();
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the token response validated without an ID token');
    return claims;
  }

  private config(): Promise<oidc.Configuration> {
    this.configuration ??= this.discover().catch((err: unknown) => {
      this.configuration = null;
      throw err;
    });
    return this.configuration;
  }

  private async discover(): Promise<oidc.Configuration> {
    const s = this.settings;
    // http issuers only where the operator configured one (a local Keycloak or Dex, the tests).
    const insecure = s.issuer.protocol === 'http:';
    const discovered = await oidc.discovery(s.issuer, s.clientId, undefined, undefined, {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
    const server = discovered.serverMetadata();
    const config = new oidc.Configuration(
      server,
      s.clientId,
      { [oidc.clockTolerance]: s.clockToleranceSeconds },
      clientAuthentication(s.clientSecret, server.token_endpoint_auth_methods_supported),
    );
    config.timeout = PROVIDER_TIMEOUT_SECONDS;
    if (insecure) oidc.allowInsecureRequests(config);
    // The token endpoint's TLS alone would vouch for the ID token (OIDC Core 3.1.3.7): the JWKS
    // signature check is on anyway, so a token altered anywhere on its way (a TLS-terminating
    // proxy, an http issuer) is refused, and the key that signed each sign-in is known.
    oidc.enableNonRepudiationChecks(config);
    return config;
  }
}

/**
 * HTTP Basic when the provider takes it (the spec's default when it lists nothing), else the
 * secret in the form body; a public client authenticates by PKCE alone.
 */
function clientAuthentication(
  secret: string | null,
  supported: readonly string[] | undefined,
): oidc.ClientAuth {
  if (secret === null) return oidc.None();
  if (!supported || supported.includes('client_secret_basic')) return oidc.ClientSecretBasic(secret);
  return oidc.ClientSecretPost(secret);
}
