import { type INestApplication } from '@nestjs/common';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { platformEnv } from '#libs/providers';
import { ConsoleClient } from './console-client.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { testConfig } from './gateway.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from './redis.js';

/**
 * The console alone, on its own database and Redis prefix, with an environment (bootstrap) admin
 * token: enough for tests of the console API's access rules. No router, edge or worker (the routes
 * that ask the router answer 502, which is neither 401 nor 403).
 */
export interface BareConsole {
  readonly app: INestApplication;
  readonly url: string;
  readonly db: TestDatabase;
  /** A client holding the environment's CONSOLE_ADMIN_TOKEN. */
  readonly bootstrap: ConsoleClient;
  close(): Promise<void>;
}

export async function startBareConsole(label: string, bootstrapToken: string): Promise<BareConsole> {
  const db = await createTestDatabase(label);
  const prefix = uniqueRedisPrefix(label);
  const env = readEnv(
    {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      CONSOLE_ADMIN_TOKEN: bootstrapToken,
    },
    platformEnv(),
  );
  const app = await createConsoleApp(env, parseConfig(testConfig('http://127.0.0.1:9')));
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    db,
    bootstrap: new ConsoleClient(url, bootstrapToken),
    async close() {
      await app.close();
      await db.drop();
      await dropRedisPrefix(prefix, env.redis);
    },
  };
}
