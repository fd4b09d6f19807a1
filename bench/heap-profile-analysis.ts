/**
 * Where the edge's heap bytes come from, from a V8 sampling heap profile
 * (`HeapProfiler.startSampling` with the objects collected by young and full GCs included, so it
 * sees every allocation, not only what was still alive at the end): bytes per request by the
 * function that allocated them, by component (Node core frames charged to the nearest library or
 * our code up the stack, as in the CPU profile), and by the nearest function of ours on the stack,
 * the request-path code that asked for the allocation however deep in a library it happened.
 */
import { componentOf, NO_LIBRARY, shortUrl } from './profile-analysis.js';

/** The parts of a `.heapprofile` (HeapProfiler.SamplingHeapProfile) read here. */
export interface HeapProfile {
  readonly head: HeapProfileNode;
}

export interface HeapProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  /** Bytes the samples taken in this frame stand for (V8 scales each sample by the interval). */
  readonly selfSize: number;
  readonly children: readonly HeapProfileNode[];
}

export interface HeapShare {
  readonly name: string;
  readonly bytesPerRequest: number;
  /** Share of every byte allocated over the profiled run, in percent. */
  readonly pct: number;
}

export interface HeapProfileSummary {
  readonly totalBytes: number;
  readonly requests: number;
  readonly bytesPerRequest: number;
  readonly components: readonly HeapShare[];
  /** Self bytes by allocating function, any code. */
  readonly sites: readonly HeapShare[];
  /** Bytes by the nearest function of ours (apps, libs) on the allocating stack. */
  readonly ourCallers: readonly HeapShare[];
}

/** Where no function of ours was on the stack: timers, sockets, library callbacks. */
export const NOT_OURS = '(no function of ours on the stack)';

const nameOf = (frame: HeapProfileNode['callFrame']): string =>
  `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;

function add(map: Map<string, number>, key: string, bytes: number): void {
  if (bytes > 0) map.set(key, (map.get(key) ?? 0) + bytes);
}

export function summariseHeapProfile(profile: HeapProfile, requests: number): HeapProfileSummary {
  const components = new Map<string, number>();
  const sites = new Map<string, number>();
  const ours = new Map<string, number>();
  let total = 0;
  // Depth-first with an explicit stack: a deep async chain must not overflow the call stack.
  const pending: Array<{ node: HeapProfileNode; owner: string; ourCaller: string }> = [
    { node: profile.head, owner: NO_LIBRARY, ourCaller: NOT_OURS },
  ];
  while (pending.length > 0) {
    const { node, owner: above, ourCaller: oursAbove } = pending.pop()!;
    const frame = node.callFrame;
    const own = componentOf(frame);
    const owner = own ?? above;
    const ourCaller = own?.startsWith('our code') ? nameOf(frame) : oursAbove;
    total += node.selfSize;
    add(components, owner, node.selfSize);
    add(sites, nameOf(frame), node.selfSize);
    add(ours, ourCaller, node.selfSize);
    for (const child of node.children) pending.push({ node: child, owner, ourCaller });
  }
  const shares = (m: Map<string, number>, limit: number): HeapShare[] =>
    [...m]
      .map(([name, bytes]) => ({ name, bytesPerRequest: bytes / requests, pct: (bytes / total) * 100 }))
      .filter((s) => s.pct >= 0.5)
      .sort((a, b) => b.pct - a.pct)
      .slice(0, limit);
  return {
    totalBytes: total,
    requests,
    bytesPerRequest: total / requests,
    components: shares(components, 15),
    sites: shares(sites, 20),
    ourCallers: shares(ours, 15),
  };
}
