import { describe, expect, it } from '@jest/globals';
import { loadConfigFile } from '#libs/gateway-config';
import { readYaml, repoPath } from './repo.js';

interface ProviderDoc {
  id: string;
  base_url: string;
}
interface ConfigDoc {
  providers: ProviderDoc[];
}

/** The local demo upstream: the mock provider, which `npm start` runs on this address. */
const LOCAL_MOCK = 'http://127.0.0.1:4010';
const COMPOSE_MOCK = 'http://mock-provider:4010';

describe('gateway config files', () => {
  it.each(['config/gateway.yaml', 'config/gateway.compose.yaml'])('%s passes the config schema', (file) => {
    expect(() => loadConfigFile(repoPath(file))).not.toThrow();
  });

  it('gateway.compose.yaml equals gateway.yaml except for the demo providers base_url', () => {
    const local = readYaml('config/gateway.yaml') as ConfigDoc;
    const compose = readYaml('config/gateway.compose.yaml') as ConfigDoc;
    const demoIds = local.providers.filter((p) => p.base_url.startsWith(LOCAL_MOCK)).map((p) => p.id);
    expect(demoIds.length).toBeGreaterThan(0);

    const composeAsLocal: ConfigDoc = {
      ...compose,
      providers: compose.providers.map((p) =>
        demoIds.includes(p.id) && p.base_url.startsWith(COMPOSE_MOCK)
          ? { ...p, base_url: LOCAL_MOCK + p.base_url.slice(COMPOSE_MOCK.length) }
          : p,
      ),
    };
    expect(composeAsLocal).toEqual(local);
  });
});
