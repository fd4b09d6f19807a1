import { describe, expect, it } from '@jest/globals';
import { readEnv } from './env.js';
import { platformEnv } from '#libs/providers';
import { parseProviderKeyVars, providerKeysOf, providerKeyVarRefusal } from './provider-key-vars.js';

/** The provider types' variables, as every app reads its environment with them. */
const PLATFORM = platformEnv();

const ENV = {
  OPENAI_API_KEY: 'sk-openai',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key',
  CONSOLE_ADMIN_TOKEN: 'admin-token',
  DATABASE_URL: 'postgres://u:p@db/gateway',
  GATEWAY_SECRET_KEYS: 'k1:AAAA',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  PATH: '/usr/bin',
  VENDOR_TOKEN: 'vendor',
};

describe('the variables providers may read', () => {
  it('by default: the vendors *_API_KEY convention and Bedrock API keys, nothing of the gateway', () => {
    const vars = parseProviderKeyVars(undefined, PLATFORM);
    expect(providerKeysOf(ENV, vars)).toEqual({
      OPENAI_API_KEY: 'sk-openai',
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key',
    });
  });

  it("refuses the gateway's own settings whatever the deployment declares", () => {
    const vars = parseProviderKeyVars(
      'CONSOLE_ADMIN_TOKEN, DATABASE_URL GATEWAY_* *_URL, PATH, AWS_*',
      PLATFORM,
    );
    expect(providerKeysOf(ENV, vars)).toEqual({ AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key' });
    for (const name of [
      'CONSOLE_ADMIN_TOKEN',
      'DATABASE_URL',
      'GATEWAY_SECRET_KEYS',
      'PATH',
      'AWS_SECRET_ACCESS_KEY',
    ])
      expect(providerKeyVarRefusal(name, vars)).toBe(
        `${name} is one of the gateway's own settings, never a provider key`,
      );
  });

  it('reads exact names, PREFIX_* and *_SUFFIX, and names what is not declared', () => {
    const vars = parseProviderKeyVars('VENDOR_*,*_SECRET_KEY,LOCAL_LLM');
    expect(providerKeyVarRefusal('VENDOR_TOKEN', vars)).toBeNull();
    expect(providerKeyVarRefusal('GROQ_SECRET_KEY', vars)).toBeNull();
    expect(providerKeyVarRefusal('LOCAL_LLM', vars)).toBeNull();
    expect(providerKeyVarRefusal('OPENAI_API_KEY', vars)).toBe(
      'OPENAI_API_KEY is not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS: VENDOR_*,*_SECRET_KEY,LOCAL_LLM)',
    );
  });

  it('refuses a declaration that is no name or pattern (a bare * would declare the whole environment)', () => {
    for (const bad of ['*', 'A*B', 'lower_case', '*_'])
      expect(() => parseProviderKeyVars(bad)).toThrow(/GATEWAY_PROVIDER_KEY_VARS: ".*" is neither/);
  });

  it('readEnv resolves provider keys only in the declared variables', () => {
    const env = readEnv({ ...ENV, GATEWAY_PROVIDER_KEY_VARS: 'VENDOR_TOKEN' });
    expect(env.providerKeys).toEqual({ VENDOR_TOKEN: 'vendor' });
    expect(Object.isFrozen(env.providerKeys)).toBe(true);
  });
});
