/** DI tokens for values and clients (STYLE 10): classes are injected by type. */
export const CONFIG = Symbol('GatewayConfig');
export const CATALOG = Symbol('Catalog');
export const REDIS = Symbol('Redis');
export const REDIS_KEYS = Symbol('RedisKeys');
export const ENV = Symbol('Env');
/** Postgres, for the configuration store only: routing itself never waits on it. */
export const DB = Symbol('Db');
export const ROUTER_OPTIONS = Symbol('RouterOptions');

/** Timings that are not part of the operator's YAML; tests shorten them. */
export interface RouterOptions {
  /** Leader lease length; renewed (and sought by followers) every third of it. */
  readonly leaseMs: number;
  /** Republish the unchanged table this often, so a late edge always finds a fresh key. */
  readonly refreshMs: number;
}

export const DEFAULT_ROUTER_OPTIONS: RouterOptions = { leaseMs: 10_000, refreshMs: 30_000 };
/** `ProviderCredentials`: per provider, the credential its static key (if any) does not cover. */
export const CREDENTIALS = Symbol('ProviderCredentials');
