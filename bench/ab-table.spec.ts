import { describe, expect, it } from '@jest/globals';
import { type AbRound, abTable, minMedianMax, variantFiles } from './ab-table.js';

const round = (
  node: string,
  rps: number[],
  heap?: { allocatedBytes: number; promotedBytes: number },
): AbRound => ({
  edgeBootRssMb: 140,
  machine: { node },
  cells: [
    {
      cell: { mode: 'non-stream', concurrency: 32 },
      edgePeakRssMb: 190,
      pairs: rps.map((r) => ({
        gateway: {
          rps: r,
          edgeCpuUsPerRequest: 1e6 / r,
          seconds: 10,
          requests: r * 10,
          edgeRuntime: { gc: { count: 10, totalMs: 500 }, ...(heap ? { heap } : {}) },
        },
      })),
    },
  ],
});

describe('minMedianMax', () => {
  it('is min / median / max, the median of an even count the mean of the middle two', () => {
    expect(minMedianMax([3, 1, 2])).toBe('1 / **2** / 3');
    expect(minMedianMax([4, 1, 2, 3], 1)).toBe('1 / **2.5** / 4');
  });

  it('leaves out rounds without the figure, and is n/a when none has it', () => {
    expect(minMedianMax([Number.NaN, 5, 7])).toBe('5 / **6** / 7');
    expect(minMedianMax([Number.NaN])).toBe('n/a');
  });
});

describe('abTable', () => {
  it('has a row per variant and cell over all its rounds, with heap KB per request, and its boot RSS', () => {
    const t = abTable(
      new Map([
        [
          'A',
          [
            round('v24.21.0', [1000], { allocatedBytes: 10_240 * 60_000, promotedBytes: 1024 * 10_000 }),
            round('v24.21.0', [2000], { allocatedBytes: 20_480 * 50_000, promotedBytes: 2048 * 20_000 }),
          ],
        ],
        ['B (old bench)', [round('v20.20.2', [500, 1500])]],
      ]),
    ).split('\n');
    expect(t).toHaveLength(6);
    // A: 10,000 requests allocating 60 KB and promoting 1 KB each, 20,000 allocating 50 KB and promoting 2 KB each.
    expect(t[2]).toBe(
      '| A | v24.21.0 | 2 | non-stream c=32 | 1,000 / **1,500** / 2,000 | 500 / **750** / 1,000 | 190 / **190** / 190 | 50 / **50** / 50 | 50 / **55** / 60 | 1 / **1.5** / 2 |',
    );
    expect(t[3]).toBe('| A | v24.21.0 | 2 | after boot | | | 140 / **140** / 140 | | | |');
    expect(t[4]).toBe(
      '| B (old bench) | v20.20.2 | 1 | non-stream c=32 | 500 / **1,000** / 1,500 | 667 / **1,333** / 2,000 | 190 / **190** / 190 | 50 / **50** / 50 | n/a | n/a |',
    );
  });
});

describe('variantFiles', () => {
  it('groups files by label in the order given', () => {
    expect([...variantFiles(['a=1.json', 'b=2.json', 'a=3.json'])]).toEqual([
      ['a', ['1.json', '3.json']],
      ['b', ['2.json']],
    ]);
  });

  it('refuses an argument without a label or a file', () => {
    for (const bad of ['results.json', '=x.json', 'a='])
      expect(() => variantFiles([bad])).toThrow(/expected <label>=<results.json>/);
  });
});
