import { describe, expect, it } from '@jest/globals';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { allowedGroups, groupViews } from './group-access.js';

const model = (id: string) => ({
  id,
  owned_by: 'x',
  created: 0,
  pricing: { input_per_million: 1, output_per_million: 1 },
});
const catalog = new Catalog(
  parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['a', 'b'] }],
    models: [model('a'), model('b')],
    groups: { default: ['a'], premium: ['a', 'b'], internal: ['b'] },
  }),
  {},
);

describe('group access', () => {
  it('gives admins every group', () => {
    expect(allowedGroups({ role: 'admin', groups: ['default'] }, ['default'], catalog)).toEqual([
      'default',
      'premium',
      'internal',
    ]);
  });

  it('gives users the default groups when none are set', () => {
    expect(allowedGroups({ role: 'member', groups: null }, ['default'], catalog)).toEqual(['default']);
  });

  it('gives users their own list, minus groups the config no longer has', () => {
    expect(allowedGroups({ role: 'member', groups: ['internal', 'gone'] }, ['default'], catalog)).toEqual([
      'internal',
    ]);
    expect(allowedGroups({ role: 'member', groups: [] }, ['default'], catalog)).toEqual([]);
  });

  it('lists each group with its models', () => {
    expect(groupViews(['premium'], catalog)).toEqual([{ name: 'premium', models: ['a', 'b'] }]);
  });
});
