import { type Env, type GatewayConfig } from '#libs/config';
import { type OidcSettings, resolveOidcSettings } from './auth/oidc/oidc-settings.js';

/** The console's config section resolved against the env: everything derived once, at boot. */
export interface ConsoleSettings {
  readonly publicUrl: string;
  /** The base address users put in their SDKs (without /v1). */
  readonly gatewayUrl: string;
  readonly routerUrl: string;
  /** Set the `Secure` attribute on the session cookie. */
  readonly cookieSecure: boolean;
  readonly trustProxy: boolean;
  readonly sessionTtlMs: number;
  /** Groups of a user whose `groups` is null. */
  readonly defaultGroups: readonly string[];
  readonly bodyLimitBytes: number;
  readonly signIn: {
    readonly maxFailuresPerEmail: number;
    readonly maxFailuresPerIp: number;
    readonly windowMs: number;
  };
  /** Credits a user created in the console starts with (the worker's default grant). */
  readonly defaultGrantCredits: number;
  readonly adminToken: string | null;
  readonly bootstrapAdmin: { readonly email: string; readonly password: string } | null;
  /** Single sign-on; null when not configured. */
  readonly oidc: OidcSettings | null;
  /** Email and password sign-in; only SSO deployments turn it off. */
  readonly passwordSignIn: boolean;
}

/** `[::]`-style and wildcard hosts are not addresses a browser can open. */
function browsable(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export function resolveConsoleSettings(env: Env, config: GatewayConfig): ConsoleSettings {
  const c = config.console;
  const host = browsable(env.host);
  const publicUrl = c.public_url ?? `http://${host}:${env.consolePort}`;
  return Object.freeze({
    publicUrl,
    gatewayUrl: c.gateway_url ?? c.public_url ?? `http://${host}:${env.edgePort}`,
    routerUrl: c.router_url ?? `http://${host}:${env.routerPort}`,
    cookieSecure: c.cookie_secure || publicUrl.startsWith('https:'),
    trustProxy: c.trust_proxy,
    sessionTtlMs: c.session_ttl_ms,
    defaultGroups: c.default_groups ?? ('default' in config.groups ? ['default'] : []),
    bodyLimitBytes: c.body_limit_bytes,
    signIn: {
      maxFailuresPerEmail: c.sign_in_max_failures_per_email,
      maxFailuresPerIp: c.sign_in_max_failures_per_ip,
      windowMs: c.sign_in_window_ms,
    },
    defaultGrantCredits: config.worker.default_grant_credits,
    adminToken: env.consoleAdminToken,
    bootstrapAdmin:
      env.consoleAdminEmail && env.consoleAdminPassword
        ? { email: env.consoleAdminEmail, password: env.consoleAdminPassword }
        : null,
    oidc: c.oidc ? resolveOidcSettings(c.oidc, env.secrets, publicUrl) : null,
    passwordSignIn: c.oidc?.password_sign_in ?? true,
  });
}
