import { describe, expect, it } from '@jest/globals';
import { parseProviderKeyVars, type ProviderEntryInput, type SecretBinding } from '#libs/config';
import { platformEnv, providerEntrySchemaOfRegistry } from '#libs/providers';
import { credentialIssues } from './credential-authority.js';

/** An entry as written; `issuesOf` reads each as the configuration's schema makes it. */
const provider = (extra: Partial<ProviderEntryInput> & { id: string }): ProviderEntryInput => ({
  type: 'openai',
  base_url: 'https://api.openai.com/v1',
  models: ['m'],
  ...extra,
});
const parsed = (p: ProviderEntryInput) => providerEntrySchemaOfRegistry().parse(p);

const SECRET = '11111111-1111-4111-8111-111111111111';
const saved = [
  provider({ id: 'openai', api_key_env: 'OPENAI_API_KEY' }),
  provider({ id: 'stored', api_key_secret: SECRET }),
  provider({ id: 'azure', type: 'azure-openai', base_url: 'https://corp.openai.azure.com/openai/v1' }),
  provider({ id: 'local', type: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1' }),
];
const bindings = new Map<string, SecretBinding | null>([
  [SECRET, { provider: 'stored', origins: ['https://api.openai.com'] }],
]);

const issuesOf = (after: ProviderEntryInput[], admin: boolean, before = saved) =>
  credentialIssues({
    before: before.map(parsed),
    after: after.map((p, i) => ({ path: `providers[${i}]`, provider: parsed(p) })),
    admin,
    keyVars: parseProviderKeyVars(undefined, platformEnv()),
    ownSecretVar: 'OIDC_CLIENT_SECRET',
    bindings,
  }).map((i) => `${i.path}: ${i.message}`);

describe('who may make the gateway send which credential where', () => {
  it('anyone may keep what is saved, and change what sends no credential', () => {
    expect(issuesOf(saved, false)).toEqual([]);
    const moved = saved.map((p) => (p.id === 'local' ? { ...p, base_url: 'http://10.0.0.9/v1' } : p));
    expect(issuesOf(moved, false)).toEqual([]);
  });

  it('names of the gateway environment are refused to everyone, admins included', () => {
    for (const admin of [true, false]) {
      const out = issuesOf([provider({ id: 'x', api_key_env: 'CONSOLE_ADMIN_TOKEN' })], admin);
      expect(out).toContain(
        "providers[0].api_key_env: CONSOLE_ADMIN_TOKEN is one of the gateway's own settings, never a provider key",
      );
    }
    expect(issuesOf([provider({ id: 'x', api_key_env: 'OIDC_CLIENT_SECRET' })], true)).toEqual([
      "providers[0].api_key_env: OIDC_CLIENT_SECRET is one of the gateway's own settings, never a provider key",
    ]);
    expect(issuesOf([provider({ id: 'x', api_key_env: 'SOME_TOKEN' })], true)).toEqual([
      'providers[0].api_key_env: SOME_TOKEN is not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS: *_API_KEY,AWS_BEARER_TOKEN_BEDROCK)',
    ]);
  });

  it('only an admin sets or changes api_key_env', () => {
    expect(issuesOf([provider({ id: 'new', api_key_env: 'OPENAI_API_KEY' })], false)).toEqual([
      'providers[0].api_key_env: only an admin may set or change api_key_env (it reads the gateway environment)',
    ]);
    expect(issuesOf([provider({ id: 'new', api_key_env: 'OPENAI_API_KEY' })], true)).toEqual([]);
  });

  it('only an admin points a provider holding a key or a cloud identity elsewhere', () => {
    const repointed = [
      provider({ id: 'openai', api_key_env: 'OPENAI_API_KEY', base_url: 'https://evil.example/v1' }),
    ];
    expect(issuesOf(repointed, false)).toEqual([
      'providers[0].base_url: only an admin may point provider openai, which holds a key or cloud identity, at another address (https://api.openai.com, not https://evil.example)',
    ]);
    expect(issuesOf(repointed, true)).toEqual([]);
    const azure = [
      provider({ id: 'azure', type: 'azure-openai', base_url: 'https://evil.example/openai/v1' }),
    ];
    expect(issuesOf(azure, false)).toHaveLength(1);
  });

  it("only an admin lends the gateway's own cloud identity to a new provider", () => {
    expect(
      issuesOf(
        [
          provider({
            id: 'v',
            type: 'vertex',
            base_url: 'https://evil.example',
            project: 'my-project-123',
            location: 'global',
          }),
        ],
        false,
      ),
    ).toEqual([
      "providers[0].type: only an admin may add a provider that authenticates with the gateway's own Google Cloud identity",
    ]);
    // Turning a keyless local provider into Entra ID is lending it too.
    const local = [provider({ id: 'local', type: 'azure-openai', base_url: 'http://127.0.0.1:11434/v1' })];
    expect(issuesOf(local, false)[0]).toMatch(/own Microsoft Entra ID identity/);
  });

  it('a stored key goes only where it was saved for, for admins too: entering it again is the way', () => {
    for (const admin of [true, false]) {
      const elsewhere = issuesOf(
        [provider({ id: 'stored', api_key_secret: SECRET, base_url: 'https://evil.example/v1' })],
        admin,
      );
      expect(elsewhere).toContain(
        'providers[0].api_key_secret: the stored key cannot be used here: it was saved for provider stored at https://api.openai.com, not stored at https://evil.example: enter the key again to use it there',
      );
      const borrowed = issuesOf([provider({ id: 'mine', api_key_secret: SECRET })], admin);
      expect(borrowed[0]).toMatch(/saved for provider stored at https:\/\/api\.openai\.com, not mine at/);
    }
  });
});
