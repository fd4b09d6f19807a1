import { type INestApplication } from '@nestjs/common';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { type GatewayConfigInput, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { platformEnv } from '#libs/providers';
import { createTestDatabase, type TestDatabase } from './db.js';
import { testConfig } from './gateway.js';
import { startOidcProvider, type TestAccount, type TestOidcProvider } from './oidc-provider.js';
import { freePort } from './private-servers.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from './redis.js';

type OidcInput = NonNullable<NonNullable<GatewayConfigInput['console']>['oidc']>;

/** A console whose single sign-on is the in-test OIDC provider, on its own database and Redis prefix. */
export interface SsoConsole {
  readonly consoleUrl: string;
  readonly idp: TestOidcProvider;
  readonly db: TestDatabase;
  /** The console's Redis key prefix (what it announces key invalidations under). */
  readonly redisPrefix: string;
  close(): Promise<void>;
}

const SECRET_ENV = 'TEST_OIDC_CLIENT_SECRET';

/**
 * The provider's `roles` claim maps `gateway-admins` to admin; its `groups` claim maps `ml-team`
 * to the gateway groups default and other, `everyone` to default (testConfig's two groups).
 */
export async function startSsoConsole(
  label: string,
  accounts: Readonly<Record<string, TestAccount>>,
  oidc: Partial<OidcInput> = {},
): Promise<SsoConsole> {
  const idp = await startOidcProvider({ accounts });
  // The redirect URI is registered at the provider before the console exists: its port is chosen first.
  const port = await freePort();
  const consoleUrl = `http://127.0.0.1:${port}`;
  idp.registerClient(`${consoleUrl}/api/auth/oidc/callback`);
  const db = await createTestDatabase(label);
  const prefix = uniqueRedisPrefix(label);
  const config = parseConfig({
    ...testConfig('http://127.0.0.1:9'),
    console: {
      public_url: consoleUrl,
      oidc: {
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret_env: SECRET_ENV,
        display_name: 'Test IdP',
        scopes: ['openid', 'email', 'profile', 'groups'],
        role_claim: 'roles',
        role_values: { 'gateway-admins': 'admin' },
        groups_claim: 'groups',
        groups_map: { 'ml-team': ['default', 'other'], everyone: ['default'] },
        ...oidc,
      },
    },
  });
  const env = readEnv(
    {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      [SECRET_ENV]: idp.clientSecret,
    },
    platformEnv(),
  );
  const app: INestApplication = await createConsoleApp(env, config);
  await app.listen(port, '127.0.0.1');
  return {
    consoleUrl,
    idp,
    db,
    redisPrefix: prefix,
    async close() {
      await app.close();
      await idp.close();
      await db.drop();
      await dropRedisPrefix(prefix, env.redis);
    },
  };
}
