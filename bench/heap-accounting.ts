/**
 * Bytes the edge allocated and promoted over a counted run, from V8's own heap figures before and
 * after each collection (`v8.GCProfiler`). Node 24 exposes no running total of bytes allocated
 * (`v8.getHeapStatistics()` has no `total_allocated_bytes`), but between two collections the used
 * heap only grows by allocation, so everything allocated in an interval is what the heap grew by
 * plus what each collection in it freed. Unlike times, these counts do not depend on what else
 * the machine runs: the same code serving the same requests allocates the same bytes.
 */

/** The used heap at one instant, in bytes: all of it and its young generation. */
export interface HeapUse {
  readonly used: number;
  /** new_space and new_large_object_space: what a scavenge collects. */
  readonly young: number;
}

/** One collection (or marking step) as V8 reported it. */
export interface GcRecord {
  /** GCProfiler's `gcType`: Scavenge, MinorMarkSweep, MarkSweepCompact, IncrementalMarking... */
  readonly kind: string;
  readonly before: HeapUse;
  readonly after: HeapUse;
}

export interface HeapTraffic {
  /** Bytes allocated on the V8 heap over the interval (Buffers' and ArrayBuffers' contents are outside it). */
  readonly allocatedBytes: number;
  /**
   * Bytes young collections moved out of the young generation into the old one: what outlived
   * two scavenges (or was too large for the young generation), the work that fills the old
   * generation and so brings the long mark-compacts. A mark-compact's own promotion cannot be told
   * from what it frees, so it is not counted; there are few of them per run.
   */
  readonly promotedBytes: number;
  readonly youngCollections: number;
  readonly fullCollections: number;
}

/** The young generation's collectors (V8 runs one of them); every other kind is old-generation work. */
const YOUNG = new Set(['Scavenge', 'MinorMarkSweep']);
const FULL = 'MarkSweepCompact';

/**
 * What was allocated and promoted between `start` and `end`, given every collection in between in
 * the order they ran. A marking step that frees nothing adds nothing; nothing is ever negative.
 */
export function heapTraffic(start: HeapUse, end: HeapUse, gcs: readonly GcRecord[]): HeapTraffic {
  let freed = 0;
  let promoted = 0;
  let young = 0;
  let full = 0;
  for (const gc of gcs) {
    freed += gc.before.used - gc.after.used;
    if (YOUNG.has(gc.kind)) {
      young++;
      // The old generation grows in a young collection by exactly what it promoted.
      promoted += Math.max(0, gc.after.used - gc.after.young - (gc.before.used - gc.before.young));
    } else if (gc.kind === FULL) full++;
  }
  return {
    allocatedBytes: Math.max(0, end.used - start.used + freed),
    promotedBytes: promoted,
    youngCollections: young,
    fullCollections: full,
  };
}

/** The parts of `v8.GCProfiler().stop()` read here (Node's GCProfiler result, version 1). */
export interface GcProfile {
  readonly statistics: ReadonlyArray<{
    readonly gcType: string;
    readonly beforeGC: GcProfileHeap;
    readonly afterGC: GcProfileHeap;
  }>;
}

interface GcProfileHeap {
  readonly heapStatistics: { readonly usedHeapSize: number };
  readonly heapSpaceStatistics: ReadonlyArray<{ readonly spaceName: string; readonly spaceUsedSize: number }>;
}

const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

function youngOf(spaces: GcProfileHeap['heapSpaceStatistics']): number {
  return spaces.reduce((sum, s) => sum + (YOUNG_SPACES.has(s.spaceName) ? s.spaceUsedSize : 0), 0);
}

const useOf = (h: GcProfileHeap): HeapUse => ({
  used: h.heapStatistics.usedHeapSize,
  young: youngOf(h.heapSpaceStatistics),
});

export function gcRecords(profile: GcProfile): GcRecord[] {
  return profile.statistics.map((s) => ({
    kind: s.gcType,
    before: useOf(s.beforeGC),
    after: useOf(s.afterGC),
  }));
}

/** `v8.getHeapSpaceStatistics()` as a HeapUse (the hook reads it at the ends of the interval). */
export function heapUseNow(
  spaces: ReadonlyArray<{ readonly space_name: string; readonly space_used_size: number }>,
): HeapUse {
  let used = 0;
  let young = 0;
  for (const s of spaces) {
    used += s.space_used_size;
    if (YOUNG_SPACES.has(s.space_name)) young += s.space_used_size;
  }
  return { used, young };
}

/** Bytes per request over a run; NaN when the run completed no request or had no figures. */
export function perRequest(bytes: number | undefined, requests: number): number {
  return bytes === undefined || requests <= 0 ? Number.NaN : bytes / requests;
}
