import { Logger, type FactoryProvider, type OnModuleDestroy } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type Catalog, configDocumentOf, type Env } from '#libs/config';
import { type Database } from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { ConfigFeed } from './config-feed.js';
import { type Keyring, parseKeyring } from './keyring.js';

/** The env var holding the key-encryption keys of stored secrets (keyring.ts). */
export const SECRET_KEYS_ENV = 'GATEWAY_SECRET_KEYS';

/** The keyring of the environment, or null when none is set (stored secrets then cannot open). */
export function keyringOf(secrets: Env['secrets']): Keyring | null {
  const text = secrets[SECRET_KEYS_ENV];
  return text ? parseKeyring(text, SECRET_KEYS_ENV) : null;
}

/** An app's tokens for what the feed needs. */
export interface LiveConfigTokens {
  readonly env: symbol;
  readonly catalog: symbol;
  readonly db: symbol;
  readonly redis: symbol;
  readonly keys: symbol;
}

export const CONFIG_FEED = Symbol('CONFIG_FEED');

/**
 * The feed as a Nest provider: with `config.source: database` the app's Catalog is on the newest
 * stored version before the app listens (Nest awaits the factory), and stops following it when
 * the app closes, before its clients do. With `config.source: file`, null: the file is the truth.
 */
export function liveConfigProvider(
  t: LiveConfigTokens,
): FactoryProvider<(ConfigFeed & OnModuleDestroy) | null> {
  return {
    provide: CONFIG_FEED,
    inject: [t.env, t.catalog, t.db, t.redis, t.keys],
    useFactory: async (
      env: Env,
      catalog: Catalog,
      db: Kysely<Database>,
      redis: RedisClient,
      keys: RedisKeys,
    ) => {
      const logger = new Logger('Configuration');
      if (catalog.config.config.source === 'file') return null;
      const fileDocument = configDocumentOf(catalog.config);
      if (fileDocument === undefined) {
        logger.warn('the configuration was not read from a document: serving it as given (source: file)');
        return null;
      }
      const feed = Object.assign(
        new ConfigFeed({
          db,
          redis,
          keys,
          catalog,
          fileDocument,
          filePath: env.configPath,
          providerKeys: env.providerKeys,
          keyring: keyringOf(env.secrets),
          logger,
        }),
        { onModuleDestroy: () => feed.stop() },
      );
      await feed.start();
      return feed;
    },
  };
}
