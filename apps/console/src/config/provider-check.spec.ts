import { describe, expect, it } from '@jest/globals';
import { checkProviderEntry } from './provider-check.js';

const FILE = { router: { probe_timeout_ms: 700 }, providers: [], models: [], groups: {} };

describe('checkProviderEntry', () => {
  it("passes an entry alone, with the file's settings and its models priced for the check only", () => {
    const checked = checkProviderEntry(FILE, {
      id: 'az',
      type: 'azure-openai',
      base_url: 'https://x.openai.azure.com/',
      api_version: '2024-10-21',
      deployments: { 'gpt-4o': 'chat-prod' },
      models: [
        { id: 'gpt', upstream: 'gpt-4o' },
        { id: 'gpt-again', upstream: 'gpt-4o' },
      ],
      enabled: false,
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.provider).toMatchObject({
      id: 'az',
      base_url: 'https://x.openai.azure.com',
      enabled: true,
    });
    expect(checked.config.router.probe_timeout_ms).toBe(700);
  });

  it('names the fields of the entry as provider.<field>, cross-checks included', () => {
    const bad = checkProviderEntry(FILE, { id: 'p', type: 'openai', base_url: 'ftp://x', models: ['m'] });
    expect(bad).toEqual({ ok: false, issues: [{ path: 'provider.base_url', message: expect.any(String) }] });
    const azure = checkProviderEntry(FILE, {
      id: 'az',
      type: 'azure-openai',
      base_url: 'https://x.openai.azure.com',
      deployments: { other: 'd' },
      models: ['gpt-4o'],
    });
    expect(azure).toEqual({
      ok: false,
      issues: [
        { path: 'provider.api_version', message: expect.stringMatching(/required with deployments/) },
        { path: 'provider.deployments', message: 'no deployment for the served model gpt-4o' },
      ],
    });
  });

  it('an entry with no model or unreadable ones is refused by the schema, not by this check', () => {
    expect(checkProviderEntry(FILE, { id: 'p', type: 'openai', base_url: 'https://a.b' })).toMatchObject({
      ok: false,
      issues: [{ path: 'provider.models' }],
    });
    expect(
      checkProviderEntry(FILE, { id: 'p', type: 'openai', base_url: 'https://a.b', models: [42, { id: 1 }] }),
    ).toMatchObject({ ok: false, issues: [{ path: 'provider.models[0]' }, { path: 'provider.models[1]' }] });
  });
});
