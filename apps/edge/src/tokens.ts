/** DI tokens for values and clients (STYLE 10): classes are injected by type. */
export const ENV = Symbol('Env');
export const CONFIG = Symbol('GatewayConfig');
export const CATALOG = Symbol('Catalog');
export const REDIS = Symbol('Redis');
export const REDIS_KEYS = Symbol('RedisKeys');
export const DB = Symbol('Database');
/** `() => ms`: the edge's clock for quota windows and request start times; tests inject a fixed one. */
export const CLOCK = Symbol('Clock');
/** `ProviderCredentials`: per provider, the credential its static key (if any) does not cover. */
export const CREDENTIALS = Symbol('ProviderCredentials');
