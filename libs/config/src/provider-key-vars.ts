/**
 * Which environment variables a provider's `api_key_env` may name. The environment holds the
 * gateway's own secrets too (the database's address, the key-encryption keys, the console's admin
 * token); configuration is edited by people who must never read those, so a provider may name only
 * the variables the deployment declares for provider keys, and never one of the gateway's own.
 */

/** The variable a deployment declares its provider key variables in. */
export const PROVIDER_KEY_VARS_ENV = 'GATEWAY_PROVIDER_KEY_VARS';

/**
 * Declared when GATEWAY_PROVIDER_KEY_VARS is unset: the vendors' own convention (`*_API_KEY`), and
 * the key variables the provider types name besides it (`PlatformEnv.keyVars`).
 */
export const DEFAULT_PROVIDER_KEY_VARS = '*_API_KEY';

/**
 * What the provider types say of the environment (their descriptors, libs/providers
 * `platformEnv()`): key variables of their own to declare by default, and the variables their
 * platforms' credential chains read, which are the gateway's like its own settings.
 */
export interface PlatformEnv {
  readonly keyVars: readonly string[];
  readonly chainNames: readonly string[];
  readonly chainPrefixes: readonly string[];
}

/** No provider type's variables: for code that reads the environment without providers. */
export const NO_PLATFORM_ENV: PlatformEnv = { keyVars: [], chainNames: [], chainPrefixes: [] };

/** Exact names, and prefixes (`VENDOR_*`) or suffixes (`*_API_KEY`) of at least two characters. */
export interface ProviderKeyVars {
  /** As written, for messages. */
  readonly declared: string;
  readonly names: ReadonlySet<string>;
  readonly prefixes: readonly string[];
  readonly suffixes: readonly string[];
  /** The platforms' credential chain variables: refused like the gateway's own. */
  readonly platform: PlatformEnv;
}

const NAME = /^[A-Z_][A-Z0-9_]*$/;
const PART = /^[A-Z0-9_]{2,}$/;

/** Parses a declaration; throws with the entry at fault (read once at boot, like every env var). */
export function parseProviderKeyVars(
  text: string | undefined,
  platform: PlatformEnv = NO_PLATFORM_ENV,
): ProviderKeyVars {
  const declared =
    text === undefined || text.trim() === ''
      ? [DEFAULT_PROVIDER_KEY_VARS, ...platform.keyVars].join(',')
      : text.trim();
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
  return { declared, names, prefixes, suffixes, platform };
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
  'PATH',
  'HOME',
]);
const OWN_PREFIXES = ['GATEWAY_', 'OTEL_', 'CONSOLE_', 'NODE_', 'NPM_'];

/** True for a variable the gateway or its platforms' credential chains read for themselves. */
export function isGatewaySetting(name: string, platform: PlatformEnv = NO_PLATFORM_ENV): boolean {
  return (
    OWN_NAMES.has(name) ||
    OWN_PREFIXES.some((p) => name.startsWith(p)) ||
    platform.chainNames.includes(name) ||
    platform.chainPrefixes.some((p) => name.startsWith(p))
  );
}

/** Why a provider may not read `name`, or null when it may. */
export function providerKeyVarRefusal(name: string, vars: ProviderKeyVars): string | null {
  if (isGatewaySetting(name, vars.platform))
    return `${name} is one of the gateway's own settings, never a provider key`;
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
