import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { Catalog, type Env, type RedisTarget } from '#libs/config';
import { CONFIG_FEED, liveConfigProvider } from '#libs/config-store';
import { liveProviderCredentials } from '#libs/credentials';
import { ambientCredential } from '#libs/providers';
import { createDb } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import {
  clientsCloser,
  credentialGauge,
  dependencyGauges,
  gracefulDrain,
  SHORT_REQUESTS_DRAIN,
} from '#libs/runtime';
import { MetricsController } from '#libs/telemetry';
import { HealthController } from './health/health.controller.js';
import { LeaderLease } from './leader/leader-lease.js';
import { HealthTracker } from './probe/health-tracker.service.js';
import { ProbeClient } from './probe/probe.client.js';
import { RoutePublisher } from './routes/route-publisher.service.js';
import { RouteView } from './routes/route-view.service.js';
import { RoutesController } from './routes/routes.controller.js';
import { RoutesReport } from './routes/routes-report.service.js';
import { PassiveHealth } from './samples/passive-health.service.js';
import { SamplesConsumer } from './samples/samples-consumer.service.js';
import { RoutesStore } from './routes/routes.store.js';
import { BreakerGauge } from './telemetry/breaker-gauge.js';
import {
  CATALOG,
  CONFIG,
  CREDENTIALS,
  DB,
  ENV,
  REDIS,
  REDIS_KEYS,
  ROUTER_OPTIONS,
  type RouterOptions,
} from './tokens.js';

export interface RouterModuleDeps {
  readonly catalog: Catalog;
  readonly redis: RedisTarget;
  readonly redisPrefix: string;
  readonly options: RouterOptions;
  /** The raw environment, for the providers' credential chains (#libs/credentials). */
  readonly secrets: Readonly<Record<string, string | undefined>>;
  /** For the configuration store (config.source: database). */
  readonly env: Env;
}

@Module({})
export class RouterModule {
  static forRoot(deps: RouterModuleDeps): DynamicModule {
    return {
      module: RouterModule,
      controllers: [RoutesController, HealthController, MetricsController],
      providers: [
        { provide: CATALOG, useValue: deps.catalog },
        { provide: CONFIG, useValue: deps.catalog.config },
        { provide: ENV, useValue: deps.env },
        { provide: DB, useFactory: () => createDb(deps.env.databaseUrl, { applicationName: 'router' }) },
        liveConfigProvider({ env: ENV, catalog: CATALOG, db: DB, redis: REDIS, keys: REDIS_KEYS }),
        {
          provide: CREDENTIALS,
          // After the feed: the credentials are those of the version the router starts on.
          inject: [CONFIG_FEED],
          useFactory: () =>
            liveProviderCredentials(deps.catalog, deps.secrets, ambientCredential, new Logger('Credentials')),
        },
        { provide: ROUTER_OPTIONS, useValue: deps.options },
        { provide: REDIS_KEYS, useValue: redisKeys(deps.redisPrefix) },
        { provide: REDIS, useFactory: () => createRedis(deps.redis, { name: 'router' }) },
        ProbeClient,
        HealthTracker,
        LeaderLease,
        RoutesStore,
        RouteView,
        PassiveHealth,
        SamplesConsumer,
        RoutePublisher,
        RoutesReport,
        BreakerGauge,
        ...gracefulDrain(SHORT_REQUESTS_DRAIN),
        dependencyGauges(REDIS, DB),
        credentialGauge(CREDENTIALS),
        clientsCloser(REDIS, DB),
      ],
    };
  }
}
