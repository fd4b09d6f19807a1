import { describe, expect, it } from '@jest/globals';
import { type ProviderRuntime } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { Catalog } from '#libs/config';
import { probeHeaders, probeUrl } from '#libs/probe';
import { groupByProbe, sharedProbeKey } from './shared-probes.js';

const provider = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  type: 'openai',
  base_url: 'https://api.example.com/v1',
  api_key_env: 'SHARED_KEY',
  models: ['m'],
  ...over,
});

const catalog = new Catalog(
  parseConfig({
    providers: [
      provider('a'),
      provider('b'),
      provider('other-key', { api_key_env: 'OTHER_KEY' }),
      provider('other-path', { probe_path: '/other' }),
      provider('other-type', { type: 'anthropic' }),
    ],
    models: [
      { id: 'm', owned_by: 't', created: 0, pricing: { input_per_million: 0, output_per_million: 0 } },
    ],
    groups: {},
  }),
  { SHARED_KEY: 'sk-shared', OTHER_KEY: 'sk-other' },
);
const p = (id: string): ProviderRuntime => catalog.providers.get(id)!;
const request = (r: ProviderRuntime) => ({ url: probeUrl(r), headers: probeHeaders(r) });
const key = (id: string, own = false) => sharedProbeKey(p(id), request, own);

describe('sharedProbeKey', () => {
  it('is one key for the same URL, headers and type, and another for any difference', () => {
    expect(key('a')).toBe(key('b'));
    for (const other of ['other-key', 'other-path', 'other-type']) expect(key(other)).not.toBe(key('a'));
  });

  it('holds no secret, and gives a provider with its own credential or a broken probe a key of its own', () => {
    expect(key('a')).not.toContain('sk-shared');
    expect(key('a', true)).toBe('own:a');
    const broken = () => {
      throw new Error('no URL');
    };
    expect(sharedProbeKey(p('b'), broken, false)).toBe('own:b');
  });
});

describe('groupByProbe', () => {
  it('groups by key in first-seen order', () => {
    expect(groupByProbe(['a1', 'b1', 'a2', 'c1', 'b2'], (s) => s[0]!)).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
      ['c1'],
    ]);
  });
});
