export const ENV = Symbol('Env');
export const CATALOG = Symbol('Catalog');
export const REDIS = Symbol('Redis');
export const REDIS_KEYS = Symbol('RedisKeys');
export const DB = Symbol('Db');
export const SETTINGS = Symbol('ConsoleSettings');
/** A Redis connection that fails at once while Redis is unreachable: for key invalidations (outbox). */
export const ANNOUNCE_REDIS = Symbol('AnnounceRedis');
