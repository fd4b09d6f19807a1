export const ENV = Symbol('Env');
export const CATALOG = Symbol('Catalog');
export const REDIS = Symbol('Redis');
export const REDIS_KEYS = Symbol('RedisKeys');
export const DB = Symbol('Db');
export const SETTINGS = Symbol('ConsoleSettings');
