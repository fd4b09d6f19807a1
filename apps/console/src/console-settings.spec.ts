import { describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { resolveConsoleSettings } from './console-settings.js';

const base: GatewayConfigInput = {
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'x', created: 0, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'], other: ['m'] },
};

describe('console settings', () => {
  it('derive URLs from the env when the config names none', () => {
    const s = resolveConsoleSettings(readEnv({ HOST: '0.0.0.0', CONSOLE_PORT: '9001' }), parseConfig(base));
    expect(s.publicUrl).toBe('http://127.0.0.1:9001');
    expect(s.routerUrl).toBe('http://127.0.0.1:8082');
    expect(s.gatewayUrl).toBe('http://127.0.0.1:8080');
    expect(s.cookieSecure).toBe(false);
    expect(s.defaultGroups).toEqual(['default']);
    expect(s.adminToken).toBeNull();
    expect(s.bootstrapAdmin).toBeNull();
  });

  it('make cookies Secure when the console is served over https', () => {
    const config = parseConfig({ ...base, console: { public_url: 'https://gw.example.com/' } });
    const s = resolveConsoleSettings(readEnv({}), config);
    expect(s.publicUrl).toBe('https://gw.example.com');
    expect(s.cookieSecure).toBe(true);
    expect(s.gatewayUrl).toBe('https://gw.example.com');
  });

  it('tell users the gateway address the config names, over the console address', () => {
    const console = { public_url: 'https://console.example.com', gateway_url: 'https://api.example.com/' };
    const s = resolveConsoleSettings(readEnv({}), parseConfig({ ...base, console }));
    expect(s.gatewayUrl).toBe('https://api.example.com');
  });

  it('take the bootstrap admin only when both env vars are set', () => {
    const config = parseConfig(base);
    expect(
      resolveConsoleSettings(readEnv({ CONSOLE_ADMIN_EMAIL: 'a@b.c' }), config).bootstrapAdmin,
    ).toBeNull();
    expect(
      resolveConsoleSettings(readEnv({ CONSOLE_ADMIN_EMAIL: 'a@b.c', CONSOLE_ADMIN_PASSWORD: 'pw' }), config)
        .bootstrapAdmin,
    ).toEqual({ email: 'a@b.c', password: 'pw' });
  });

  it('have no default groups when the config has no `default` group', () => {
    const config = parseConfig({ ...base, groups: { other: ['m'] } });
    expect(resolveConsoleSettings(readEnv({}), config).defaultGroups).toEqual([]);
  });

  it('refuse default groups the config does not define', () => {
    expect(() => parseConfig({ ...base, console: { default_groups: ['nope'] } })).toThrow(
      /unknown group nope/,
    );
  });
});
