import { type FactoryProvider } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type Database, pingDatabase } from '#libs/db';
import { type RedisClient } from '#libs/redis';
import { CredentialGauge, DependencyGauges, telemetry } from '#libs/telemetry';

/**
 * `gateway.dependency.up` for the app's Redis and Postgres (`redisToken`, `dbToken`), checked at
 * each scrape (deploy/prometheus/alerts.yml): one provider every app's module lists.
 */
export function dependencyGauges(redisToken: symbol, dbToken: symbol): FactoryProvider<DependencyGauges> {
  return {
    provide: DependencyGauges,
    inject: [redisToken, dbToken],
    useFactory: (redis: RedisClient, db: Kysely<Database>) =>
      new DependencyGauges(telemetry().metrics, {
        redis: () => redis.ping(),
        postgres: () => pingDatabase(db),
      }),
  };
}

/** `gateway.credentials.refresh_failing` for the providers' credentials behind `credentialsToken`. */
export function credentialGauge(credentialsToken: symbol): FactoryProvider<CredentialGauge> {
  return {
    provide: CredentialGauge,
    inject: [credentialsToken],
    useFactory: (credentials: ConstructorParameters<typeof CredentialGauge>[1]) =>
      new CredentialGauge(telemetry().metrics, credentials),
  };
}
