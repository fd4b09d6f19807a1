import { type DynamicModule, Module } from '@nestjs/common';
import { Catalog, type Env, type GatewayConfig } from '#libs/config';
import { liveConfigProvider } from '#libs/config-store';
import { createDb } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { clientsCloser, dependencyGauges, gracefulDrain, SHORT_REQUESTS_DRAIN } from '#libs/runtime';
import { MetricsController } from '#libs/telemetry';
import { ProvidersController } from './admin/providers.controller.js';
import { ClientSetupController } from './config/client-setup.controller.js';
import { ConfigFormsController } from './config/config-forms.controller.js';
import { ConfigController } from './config/config.controller.js';
import { ConfigService } from './config/config.service.js';
import { ProviderTestService } from './config/provider-test.service.js';
import { ProviderTestThrottle } from './config/provider-test-throttle.store.js';
import { ProviderTypesController } from './config/provider-types.controller.js';
import { UsersController } from './admin/users.controller.js';
import { UsersService } from './admin/users.service.js';
import { AuditTrail } from './audit/audit-trail.service.js';
import { AuditController } from './audit/audit.controller.js';
import { AuthController } from './auth/auth.controller.js';
import { AuthService } from './auth/auth.service.js';
import { OidcController } from './auth/oidc/oidc.controller.js';
import { OIDC_PROVIDERS } from './auth/oidc/oidc.providers.js';
import { SignInEvents } from './auth/sign-in-events.js';
import { BudgetsController } from './budgets/budgets.controller.js';
import { BudgetsService } from './budgets/budgets.service.js';
import { SignInThrottle } from './auth/sign-in-throttle.store.js';
import { type ConsoleSettings } from './console-settings.js';
import { DocsController } from './docs/docs.controller.js';
import { GroupsController } from './groups/groups.controller.js';
import { HealthController } from './health/health.controller.js';
import { KeyInvalidations } from './keys/key-invalidations.service.js';
import { KeysController } from './keys/keys.controller.js';
import { KeysService } from './keys/keys.service.js';
import { LogsController } from './logs/logs.controller.js';
import { LogsService } from './logs/logs.service.js';
import { SessionGuard } from './session/session.guard.js';
import { AdminTokensController } from './tokens-admin/admin-tokens.controller.js';
import { AdminTokens } from './tokens-admin/admin-tokens.service.js';
import { SessionStore } from './session/session.store.js';
import { AdminBootstrap } from './setup/admin-bootstrap.service.js';
import { SetupController } from './setup/setup.controller.js';
import { SetupTokens } from './setup/setup-token.store.js';
import { TeamSpaceController } from './teams/team-space.controller.js';
import { TeamSpaceService } from './teams/team-space.service.js';
import { TeamsAdminController } from './teams/teams-admin.controller.js';
import { TeamsService } from './teams/teams.service.js';
import { ANNOUNCE_REDIS, CATALOG, DB, ENV, REDIS, REDIS_KEYS, SETTINGS } from './tokens.js';
import { UsageController } from './usage/usage.controller.js';
import { UsageService } from './usage/usage.service.js';
import { WebModule } from './web/web.module.js';

/** Bounds a command in the instant Redis goes, or on a Redis that accepts and never answers. */
const REDIS_COMMAND_TIMEOUT_MS = 2_000;

@Module({})
export class ConsoleModule {
  static forRoot(env: Env, config: GatewayConfig, settings: ConsoleSettings): DynamicModule {
    return {
      module: ConsoleModule,
      // The web UI's catch-all route must come after every API route: its module is imported last.
      imports: [WebModule.forRoot()],
      controllers: [
        HealthController,
        MetricsController,
        AuthController,
        OidcController,
        SetupController,
        GroupsController,
        KeysController,
        BudgetsController,
        UsageController,
        LogsController,
        UsersController,
        AuditController,
        AdminTokensController,
        TeamsAdminController,
        TeamSpaceController,
        ProvidersController,
        ConfigController,
        ConfigFormsController,
        ProviderTypesController,
        ClientSetupController,
        DocsController,
      ],
      providers: [
        { provide: ENV, useValue: env },
        { provide: SETTINGS, useValue: settings },
        { provide: CATALOG, useValue: new Catalog(config, env.providerKeys) },
        { provide: REDIS_KEYS, useValue: redisKeys(env.redisPrefix) },
        // Sessions and the sign-in throttle: while Redis is away a request answers 503 at once
        // (api-exception.filter.ts) instead of waiting out ioredis's reconnects (measured: 1.6 s
        // at the start of an outage, ~13 s a request once its backoff reached 5 s).
        {
          provide: REDIS,
          useFactory: () =>
            createRedis(env.redis, {
              name: 'console',
              commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
              failFastWhileDown: true,
            }),
        },
        // A revoke answers at once while Redis is down: the outbox relay announces it later.
        {
          provide: ANNOUNCE_REDIS,
          useFactory: () => createRedis(env.redis, { name: 'console-key-invalidation', failFastMs: 1_000 }),
        },
        {
          provide: DB,
          useFactory: () => createDb(env.databaseUrl, { poolSize: 5, applicationName: 'console' }),
        },
        liveConfigProvider({ env: ENV, catalog: CATALOG, db: DB, redis: REDIS, keys: REDIS_KEYS }),
        AuditTrail,
        AdminTokens,
        SessionStore,
        SessionGuard,
        SignInThrottle,
        SetupTokens,
        AdminBootstrap,
        AuthService,
        SignInEvents,
        ...OIDC_PROVIDERS,
        KeyInvalidations,
        KeysService,
        BudgetsService,
        UsageService,
        LogsService,
        UsersService,
        TeamsService,
        TeamSpaceService,
        ConfigService,
        ProviderTestService,
        ProviderTestThrottle,
        ...gracefulDrain(SHORT_REQUESTS_DRAIN),
        dependencyGauges(REDIS, DB),
        clientsCloser(REDIS, ANNOUNCE_REDIS, DB),
      ],
    };
  }
}
