import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { Catalog, type Env, type GatewayConfig } from '#libs/config';
import { CONFIG_FEED, liveConfigProvider } from '#libs/config-store';
import { liveProviderCredentials } from '#libs/credentials';
import { ambientCredential } from '#libs/providers';
import { createDb } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { MetricsController } from '#libs/telemetry';
import { clientsCloser, credentialGauge, dependencyGauges, gracefulDrain } from '#libs/runtime';
import { KEY_LOOKUP, KeyResolver } from './auth/key-resolver.service.js';
import { keyLookupFromDb } from './auth/key-lookup.js';
import { HealthController } from './health/health.controller.js';
import { LogShipper } from './logs/log-shipper.service.js';
import { TokenCountService } from './pipeline/token-count.service.js';
import { ModelsController } from './models/models.controller.js';
import { ModelRequestService } from './pipeline/model-request.service.js';
import { QuotaGate } from './quota/quota-gate.service.js';
import { RealtimeSessions } from './realtime/realtime-sessions.service.js';
import { RootController } from './root/root.controller.js';
import { RoutesService } from './routing/routes.service.js';
import { SocketSessions } from './sockets/socket-sessions.service.js';
import { CATALOG, CLOCK, CONFIG, CREDENTIALS, DB, ENV, REDIS, REDIS_KEYS } from './tokens.js';
import { SampleShipper } from './routing/sample-shipper.service.js';
import { StreamMarkers } from './streams/stream-markers.store.js';
import { EdgeInstrumentation } from './telemetry/edge-instrumentation.service.js';
import { EdgeTelemetry } from './telemetry/edge-telemetry.service.js';
import { AttemptSender } from './upstream/attempt-sender.js';
import { AttemptSettler } from './upstream/attempt-settler.js';
import { FailoverService } from './upstream/failover.service.js';
import { ProviderLimiter } from './upstream/provider-limiter.js';
import { UpstreamClient } from './upstream/upstream.client.js';

/** Far above a healthy Redis's latency (well under 1 ms here, a few ms across zones). */
const REDIS_COMMAND_TIMEOUT_MS = 500;

@Module({})
export class EdgeModule {
  static forRoot(env: Env, config: GatewayConfig, clock: () => number = Date.now): DynamicModule {
    const catalog = new Catalog(config, env.providerKeys);
    return {
      module: EdgeModule,
      // The model routes are Fastify's own (http/model-routes.ts, installed by createEdgeApp).
      controllers: [ModelsController, RootController, HealthController, MetricsController],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
        { provide: CATALOG, useValue: catalog },
        liveConfigProvider({ env: ENV, catalog: CATALOG, db: DB, redis: REDIS, keys: REDIS_KEYS }),
        {
          provide: CREDENTIALS,
          // After the feed: the credentials are those of the version the edge starts serving.
          inject: [CONFIG_FEED],
          useFactory: () =>
            liveProviderCredentials(catalog, env.secrets, ambientCredential, new Logger('Credentials')),
        },
        { provide: REDIS_KEYS, useValue: redisKeys(env.redisPrefix) },
        // Every request-path use of Redis falls back on an error (quota fails open, keys come from
        // Postgres); the timeout makes that fallback prompt while Redis is away, instead of each
        // command waiting in ioredis's offline queue for a reconnect (measured: ~30 s a request),
        // and once a reconnect has failed commands fail at once, so requests do not pay the timeout.
        {
          provide: REDIS,
          useFactory: () =>
            createRedis(env.redis, {
              name: 'edge',
              commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
              failFastWhileDown: true,
            }),
        },
        { provide: DB, useFactory: () => createDb(env.databaseUrl) },
        { provide: KEY_LOOKUP, useFactory: keyLookupFromDb, inject: [DB] },
        ...gracefulDrain({
          delayMs: config.edge.shutdown_delay_ms,
          timeoutMs: config.edge.shutdown_timeout_ms,
        }),
        KeyResolver,
        RoutesService,
        UpstreamClient,
        StreamMarkers,
        LogShipper,
        SampleShipper,
        ProviderLimiter,
        AttemptSettler,
        AttemptSender,
        FailoverService,
        QuotaGate,
        ModelRequestService,
        TokenCountService,
        RealtimeSessions,
        SocketSessions,
        EdgeTelemetry,
        EdgeInstrumentation,
        dependencyGauges(REDIS, DB),
        credentialGauge(CREDENTIALS),
        clientsCloser(REDIS, DB),
      ],
    };
  }
}
