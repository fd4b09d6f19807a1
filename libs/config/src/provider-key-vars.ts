/**
 * Which environment variables a provider's `api_key_env` may name. The environment holds the
 * gateway's own secrets too (the database's address, the key-encryption keys, the console's admin
 * token); configuration is edited by people who must never read those, so a provider may name only
 * the variables the deployment declares for provider keys, and never one of the gateway's own.
 */

/** The variable a deployment declares its provider key variables in. */
export const PROVIDER_KEY_VARS_ENV = 'GATEWAY_PROVIDER_KEY_VARS';

/**
 * Declared when GATEWAY_PROVIDER_KEY_VARS is unset: the vendors' own convention
 * (OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_OPENAI_API_KEY, ...) and Bedrock's API key variable.
 */
export const DEFAULT_PROVIDER_KEY_VARS = '*_API_KEY,AWS_BEARER_TOKEN_BEDROCK';

/** Exact names, and prefixes (`VENDOR_*`) or suffixes (`*_API_KEY`) of at least two characters. */
export interface ProviderKeyVars {
  /** As written, for messages. */
  readonly declared: string;
  readonly names: ReadonlySet<string>;
  readonly prefixes: readonly string[];
  readonly suffixes: readonly string[];
}

const NAME = /^[A-Z_][A-Z0-9_]*$/;
const PART = /^[A-Z0-9_]{2,}$/;

/** Parses a declaration; throws with the entry at fault (read once at boot, like every env var). */
export function parseProviderKeyVars(text: string | undefined): ProviderKeyVars {
  const declared = text === undefined || text.trim() === '' ? DEFAULT_PROVIDER_KEY_VARS : text.trim();
  const names = new Set<string>();
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  for (const entry of declared.split(/[\s,]+/).filter(Boolean)) {
    if (entry.endsWith('*') && PART.test(entry.slice(0, -1))) prefixes.push(entry.slice(0, -1));
    else if (entry.startsWith('*') && PART.test(entry.slice(1))) suffixes.push(entry.slice(1));
    else if (NAME.test(entry)) names.add(entry);
    else
      throw new Error(
        `${PROVIDER_KEY_VARS_ENV}: "${entry}" is neither a variable name nor a PREFIX_* or *_SUFFIX pattern`,
      );
  }
  return { declared, names, prefixes, suffixes };
}

/** Names the gateway reads for itself (env.ts, the console's OIDC secret aside: see the catalog). */
const OWN_NAMES = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_CLUSTER',
  'REDIS_PREFIX',
  'EDGE_PORT',
  'ROUTER_PORT',
  'WORKER_PORT',
  'HOST',
  'EDGE_PROCESSES',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'NO_COLOR',
  'FORCE_COLOR',
  // The platforms' credential chains read these to sign or fetch tokens: never a bearer to send.
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AZURE_CLIENT_ID',
  'AZURE_CLIENT_SECRET',
  'AZURE_TENANT_ID',
  'AZURE_USERNAME',
  'AZURE_PASSWORD',
  'AZURE_FEDERATED_TOKEN_FILE',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'PATH',
  'HOME',
]);
const OWN_PREFIXES = [
  'GATEWAY_',
  'OTEL_',
  'CONSOLE_',
  'NODE_',
  'NPM_',
  'AWS_CONTAINER_',
  'AZURE_CLIENT_CERTIFICATE',
  'GOOGLE_CLOUD_',
];

/** True for a variable the gateway or its platforms' credential chains read for themselves. */
export function isGatewaySetting(name: string): boolean {
  return OWN_NAMES.has(name) || OWN_PREFIXES.some((p) => name.startsWith(p));
}

/** Why a provider may not read `name`, or null when it may. */
export function providerKeyVarRefusal(name: string, vars: ProviderKeyVars): string | null {
  if (isGatewaySetting(name)) return `${name} is one of the gateway's own settings, never a provider key`;
  const declared =
    vars.names.has(name) ||
    vars.prefixes.some((p) => name.startsWith(p)) ||
    vars.suffixes.some((s) => name.endsWith(s));
  return declared
    ? null
    : `${name} is not declared for provider keys (${PROVIDER_KEY_VARS_ENV}: ${vars.declared})`;
}

/** The environment cut to the variables providers may read: the only map `api_key_env` resolves in. */
export function providerKeysOf(
  source: Readonly<Record<string, string | undefined>>,
  vars: ProviderKeyVars,
): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source))
    if (value !== undefined && value !== '' && providerKeyVarRefusal(name, vars) === null) out[name] = value;
  return Object.freeze(out);
}
