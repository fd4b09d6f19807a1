import { describe, expect, it } from '@jest/globals';
import { parseRouteTable } from './route-table.schema.js';

const candidate = { providerId: 'a', upstreamModel: 'm', priority: 0, weight: 1, state: 'up', reason: 'ok' };

describe('parseRouteTable', () => {
  it('accepts a table and tolerates fields added by a newer router', () => {
    const doc = {
      version: 3,
      generatedAt: 'x',
      models: { m: [{ ...candidate, latencyMs: 4 }] },
      extra: true,
    };
    const parsed = parseRouteTable(JSON.stringify(doc));
    expect('table' in parsed && parsed.table.version).toBe(3);
  });

  it.each([
    ['{not json', /not JSON/],
    ['null', /not a route table/],
    [JSON.stringify({ version: -1, generatedAt: 'x', models: {} }), /version/],
    [
      JSON.stringify({ version: 1, generatedAt: 'x', models: { m: [{ ...candidate, state: 'maybe' }] } }),
      /models\.m\.0\.state/,
    ],
  ])('rejects %s', (text, error) => {
    const parsed = parseRouteTable(text);
    expect('error' in parsed && parsed.error).toMatch(error);
  });
});
