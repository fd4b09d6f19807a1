import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#libs/gateway-config';
import { composeDocument, currentConfig, liveSectionsOf, validateLive } from './live-document.js';

const model = (id: string) => ({
  id,
  owned_by: 't',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 2 },
});
const FILE = {
  edge: { log_flush_interval_ms: 7 },
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['a'] }],
  models: [model('a')],
  groups: { default: ['a'] },
};
const LIVE = {
  providers: FILE.providers,
  models: [model('a'), model('b')],
  groups: { default: ['a'], team: ['b'] },
};

describe('live document', () => {
  it('takes the live sections of a file, and composes them back over its other settings', () => {
    expect(liveSectionsOf(FILE)).toEqual({
      providers: FILE.providers,
      models: FILE.models,
      groups: FILE.groups,
    });
    const composed = composeDocument(FILE, LIVE);
    expect(composed).toEqual({ ...FILE, ...LIVE });
    const checked = validateLive(FILE, LIVE);
    expect(checked.ok && checked.config.edge.log_flush_interval_ms).toBe(7);
  });

  it('refuses a version that tries to carry a server setting, naming it', () => {
    const checked = validateLive(FILE, { ...LIVE, edge: { log_flush_interval_ms: 1 }, bogus: 1 });
    // `edge` is the file's; an unknown section is refused by the strict root.
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.issues.map((i) => i.message).join(' ')).toMatch(/bogus/);
  });

  it("gives a one-off command the stored version's groups, or the file's when the store is not the source", async () => {
    const file = parseConfig(FILE);
    expect(Object.keys((await currentConfig(file, async () => LIVE)).groups)).toEqual(['default', 'team']);
    expect(Object.keys((await currentConfig(file, async () => null)).groups)).toEqual(['default']);
    const gitops = parseConfig({ ...FILE, config: { source: 'file' } });
    expect(Object.keys((await currentConfig(gitops, async () => LIVE)).groups)).toEqual(['default']);
  });
});
