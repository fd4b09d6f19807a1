/** DI tokens for values and clients (STYLE 10): classes are injected by type. */
export const ENV = Symbol('Env');
export const CONFIG = Symbol('GatewayConfig');
/** The live configuration (prices of cut streams follow each version). */
export const CATALOG = Symbol('Catalog');
export const REDIS_KEYS = Symbol('RedisKeys');
/** Command connection (fails fast): health checks. */
export const REDIS = Symbol('Redis');
/** BullMQ connection (`maxRetriesPerRequest: null`): the queue worker. */
export const BULL_REDIS = Symbol('BullRedis');
export const DB = Symbol('Database');
