import { describe, expect, it } from '@jest/globals';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { type GcProfile, gcRecords, heapTraffic, heapUseNow, perRequest } from './heap-accounting.js';

const use = (used: number, young: number) => ({ used, young });

describe('heapTraffic', () => {
  it('is the heap growth when no collection ran', () => {
    expect(heapTraffic(use(1000, 100), use(1600, 700), [])).toEqual({
      allocatedBytes: 600,
      promotedBytes: 0,
      youngCollections: 0,
      fullCollections: 0,
    });
  });

  it('adds back what each collection freed, and counts as promoted what a young one added to the old generation', () => {
    const t = heapTraffic(use(1000, 200), use(1500, 300), [
      // 800 young bytes in: 700 freed, 40 kept young, 60 promoted (old 800 -> 860).
      { kind: 'Scavenge', before: use(1600, 800), after: use(900, 40) },
      // A mark-compact frees 300 of the old generation: freed, not promoted.
      { kind: 'MarkSweepCompact', before: use(1200, 340), after: use(900, 40) },
      // A marking step that frees nothing adds nothing.
      { kind: 'IncrementalMarking', before: use(1000, 140), after: use(1000, 140) },
      { kind: 'MinorMarkSweep', before: use(1300, 440), after: use(880, 0) },
    ]);
    // Allocated: 500 of growth + 700 + 300 + 0 + 420 freed.
    expect(t.allocatedBytes).toBe(1920);
    // 60 by the scavenge, 0 by the mark-compact, (880 - 0) - (1300 - 440) = 20 by the minor mark-sweep.
    expect(t.promotedBytes).toBe(80);
    expect(t.youngCollections).toBe(2);
    expect(t.fullCollections).toBe(1);
  });

  it('never reports a negative promotion or allocation (a young collection that shrank the old generation)', () => {
    const t = heapTraffic(use(1000, 0), use(100, 0), [
      { kind: 'Scavenge', before: use(1000, 0), after: use(500, 0) },
    ]);
    expect(t.promotedBytes).toBe(0);
    expect(t.allocatedBytes).toBe(0);
  });
});

describe('gcRecords', () => {
  it('reads the used heap and the young spaces of GCProfiler before and after each collection', () => {
    const heap = (used: number, young: number, bigYoung: number, old: number) => ({
      heapStatistics: { usedHeapSize: used },
      heapSpaceStatistics: [
        { spaceName: 'new_space', spaceUsedSize: young },
        { spaceName: 'new_large_object_space', spaceUsedSize: bigYoung },
        { spaceName: 'old_space', spaceUsedSize: old },
      ],
    });
    const profile: GcProfile = {
      statistics: [
        { gcType: 'Scavenge', beforeGC: heap(5000, 900, 100, 4000), afterGC: heap(4100, 50, 0, 4050) },
      ],
    };
    expect(gcRecords(profile)).toEqual([{ kind: 'Scavenge', before: use(5000, 1000), after: use(4100, 50) }]);
  });
});

describe('heapUseNow', () => {
  it('sums every space, and the young ones apart', () => {
    expect(
      heapUseNow([
        { space_name: 'new_space', space_used_size: 10 },
        { space_name: 'old_space', space_used_size: 100 },
        { space_name: 'new_large_object_space', space_used_size: 5 },
        { space_name: 'code_space', space_used_size: 1 },
      ]),
    ).toEqual(use(116, 15));
  });
});

describe('perRequest', () => {
  it('divides by the requests, and is NaN without requests or figures', () => {
    expect(perRequest(51_200, 1000)).toBe(51.2);
    expect(perRequest(100, 0)).toBeNaN();
    expect(perRequest(undefined, 10)).toBeNaN();
  });
});

describe('on a live heap', () => {
  let sink: unknown;

  it('counts an object of three fields as the 48 bytes V8 gives it (8-byte slots), across scavenges', () => {
    // 144 MB: more than the young generation holds at its largest (2 x 64 MB semi-spaces in V8 13).
    const n = 3_000_000;
    const profiler = new GCProfiler();
    const start = heapUseNow(getHeapSpaceStatistics());
    profiler.start();
    for (let i = 0; i < n; i++) sink = { a: i, b: i, c: i };
    const end = heapUseNow(getHeapSpaceStatistics());
    const t = heapTraffic(start, end, gcRecords(profiler.stop()));
    expect(sink).toBeDefined();
    // Collections ran in between, so what they freed had to be added back.
    expect(t.youngCollections).toBeGreaterThan(0);
    expect(t.allocatedBytes / n).toBeGreaterThan(46);
    expect(t.allocatedBytes / n).toBeLessThan(52);
  });
});
