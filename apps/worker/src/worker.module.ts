import { type DynamicModule, Module } from '@nestjs/common';
import { Catalog, type Env, type GatewayConfig } from '#libs/config';
import { liveConfigProvider } from '#libs/config-store';
import { createDb } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { clientsCloser, dependencyGauges, gracefulDrain, SHORT_REQUESTS_DRAIN } from '#libs/runtime';
import { MetricsController } from '#libs/telemetry';
import { HealthController } from './health/health.controller.js';
import { LogPartitionMaintainer } from './partitions/log-partition.maintainer.js';
import { PendingCharges } from './quota/pending-charges.service.js';
import { QuotaController } from './quota/quota.controller.js';
import { QuotaReconciler } from './quota/quota-reconciler.service.js';
import { RequestLogProcessor } from './request-logs/request-log.processor.js';
import { RequestLogWriter } from './request-logs/request-log.writer.js';
import { CutStreamSweeper } from './streams/cut-stream-sweeper.service.js';
import { EdgeStreams } from './streams/edge-streams.store.js';
import { QueueGauges } from './telemetry/queue-gauges.js';
import { BULL_REDIS, CATALOG, CONFIG, DB, ENV, REDIS, REDIS_KEYS } from './tokens.js';

@Module({})
export class WorkerModule {
  static forRoot(env: Env, config: GatewayConfig): DynamicModule {
    return {
      module: WorkerModule,
      controllers: [HealthController, QuotaController, MetricsController],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CONFIG, useValue: config },
        { provide: CATALOG, useValue: new Catalog(config, env.providerKeys) },
        { provide: REDIS_KEYS, useValue: redisKeys(env.redisPrefix) },
        { provide: REDIS, useFactory: () => createRedis(env.redis, { name: 'worker' }) },
        {
          provide: BULL_REDIS,
          useFactory: () => createRedis(env.redis, { forBullmq: true, name: 'worker-queue' }),
        },
        // Batches commit concurrently (see RequestLogProcessor) next to partition upkeep and probes.
        { provide: DB, useFactory: () => createDb(env.databaseUrl, { applicationName: 'gateway-worker' }) },
        liveConfigProvider({ env: ENV, catalog: CATALOG, db: DB, redis: REDIS, keys: REDIS_KEYS }),
        RequestLogWriter,
        RequestLogProcessor,
        LogPartitionMaintainer,
        PendingCharges,
        QuotaReconciler,
        EdgeStreams,
        CutStreamSweeper,
        QueueGauges,
        ...gracefulDrain(SHORT_REQUESTS_DRAIN),
        dependencyGauges(REDIS, DB),
        clientsCloser(REDIS, BULL_REDIS, DB),
      ],
    };
  }
}
