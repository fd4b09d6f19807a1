import {
  NO_PLATFORM_ENV,
  parseProviderKeyVars,
  type PlatformEnv,
  PROVIDER_KEY_VARS_ENV,
  providerKeysOf,
  type ProviderKeyVars,
} from './provider-key-vars.js';
import { redisTarget, type RedisTarget } from './redis-target.js';

/** The only place that reads process.env: everything else receives a typed Env. */
export interface Env {
  readonly configPath: string;
  /** `REDIS_URL`, and `REDIS_CLUSTER=true` for a Redis Cluster (then `REDIS_URL` lists seed nodes). */
  readonly redis: RedisTarget;
  /** Prefix of every Redis key and channel, so tests and tenants never collide. */
  readonly redisPrefix: string;
  readonly databaseUrl: string;
  readonly edgePort: number;
  readonly routerPort: number;
  readonly workerPort: number;
  readonly consolePort: number;
  readonly host: string;
  /**
   * `EDGE_PROCESSES`: how many edge processes serve the edge port (a Node cluster when above 1).
   * `auto` is one per CPU this container may use (its cgroup CPU limit, rounded up). Default 1:
   * `npm start`, tests and the bench each want one process; the image's deployments set it.
   */
  readonly edgeProcesses: ProcessCount;
  /** Console: first admin created at start when no user has this email (both must be set). */
  readonly consoleAdminEmail: string | null;
  readonly consoleAdminPassword: string | null;
  /** Console: bearer token for automation on /api (acts as an admin); null = token auth off. */
  readonly consoleAdminToken: string | null;
  /** The standard OTEL_* variables as set (parsed by #libs/telemetry), so no other code reads env. */
  readonly otel: Readonly<Record<string, string>>;
  /** pino level for every app: trace, debug, info (default), warn, error, fatal, silent. */
  readonly logLevel: string;
  /**
   * `LOG_FORMAT`: `json` (one JSON object a line) or `pretty` (short lines for a terminal); null
   * (unset) lets the logger decide: pretty when stdout is a terminal, else JSON.
   */
  readonly logFormat: LogFormat | null;
  /** Colour in pretty logs: false under `NO_COLOR`, true under `FORCE_COLOR`, else null (a terminal decides). */
  readonly logColor: boolean | null;
  /** `GATEWAY_PROVIDER_KEY_VARS`: the variables the deployment declares for provider keys. */
  readonly providerKeyVars: ProviderKeyVars;
  /**
   * The environment cut to those variables: the only map a provider's `api_key_env` is resolved
   * in, so no configuration can make an app send one of the gateway's own settings anywhere.
   */
  readonly providerKeys: Readonly<Record<string, string>>;
  /**
   * Raw environment, for the key-encryption keys, the OIDC client secret and the platforms'
   * credential chains (AWS, Entra ID, Google), which read their own variables. Never for `api_key_env`.
   */
  readonly secrets: Readonly<Record<string, string | undefined>>;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

export type LogFormat = 'json' | 'pretty';

function logFormat(value: string | undefined): LogFormat | null {
  if (value === undefined || value === '') return null;
  const v = value.trim().toLowerCase();
  if (v === 'json' || v === 'pretty') return v;
  throw new Error(`LOG_FORMAT must be json or pretty, got "${value}"`);
}

/** no-color.org: NO_COLOR set to anything but "" turns colour off, and wins over FORCE_COLOR. */
function logColor(noColor: string | undefined, forceColor: string | undefined): boolean | null {
  if (noColor !== undefined && noColor !== '') return false;
  if (forceColor === undefined) return null;
  return !['0', 'false'].includes(forceColor.trim().toLowerCase());
}

/** A number of processes, or one per available CPU. */
export type ProcessCount = number | 'auto';

/** Far above any core count a pod is given; a typo such as 80 instead of 8 still boots. */
const MAX_PROCESSES = 256;

function processCount(value: string | undefined, name: string): ProcessCount {
  if (value === undefined || value === '') return 1;
  if (value.trim().toLowerCase() === 'auto') return 'auto';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PROCESSES)
    throw new Error(`${name} must be auto or a whole number from 1 to ${MAX_PROCESSES}, got "${value}"`);
  return n;
}

function otelVars(source: NodeJS.ProcessEnv): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (name.startsWith('OTEL_') && value !== undefined && value !== '') out[name] = value;
  }
  return Object.freeze(out);
}

/**
 * `platform`: what the provider types say of the environment (libs/providers `platformEnv()`),
 * which every app passes; without it no provider type's variables are declared or refused.
 */
export function readEnv(
  source: NodeJS.ProcessEnv = process.env,
  platform: PlatformEnv = NO_PLATFORM_ENV,
): Env {
  const providerKeyVars = parseProviderKeyVars(source[PROVIDER_KEY_VARS_ENV], platform);
  return Object.freeze({
    configPath: source.GATEWAY_CONFIG || 'config/gateway.yaml',
    redis: redisTarget(source.REDIS_URL || 'redis://127.0.0.1:6379', source.REDIS_CLUSTER),
    redisPrefix: source.REDIS_PREFIX || 'gw',
    databaseUrl: source.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/gateway',
    edgePort: port(source.EDGE_PORT, 8080, 'EDGE_PORT'),
    consolePort: port(source.CONSOLE_PORT, 8081, 'CONSOLE_PORT'),
    routerPort: port(source.ROUTER_PORT, 8082, 'ROUTER_PORT'),
    workerPort: port(source.WORKER_PORT, 8083, 'WORKER_PORT'),
    host: source.HOST || '127.0.0.1',
    edgeProcesses: processCount(source.EDGE_PROCESSES, 'EDGE_PROCESSES'),
    consoleAdminEmail: source.CONSOLE_ADMIN_EMAIL || null,
    consoleAdminPassword: source.CONSOLE_ADMIN_PASSWORD || null,
    consoleAdminToken: source.CONSOLE_ADMIN_TOKEN || null,
    otel: otelVars(source),
    logLevel: source.LOG_LEVEL || 'info',
    logFormat: logFormat(source.LOG_FORMAT),
    logColor: logColor(source.NO_COLOR, source.FORCE_COLOR),
    providerKeyVars,
    providerKeys: providerKeysOf(source, providerKeyVars),
    secrets: Object.freeze({ ...source }),
  });
}

/** A URL from the environment without its password, fit for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
