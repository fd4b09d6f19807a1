import { describe, expect, it } from '@jest/globals';
import { type CpuProfile, type ProfileShare, summariseProfile } from './profile-analysis.js';

const DIST = 'file:///app/dist';
const frame = (id: number, functionName: string, url: string, children: number[] = [], lineNumber = 0) => ({
  id,
  callFrame: { functionName, url, lineNumber },
  children,
});

/**
 * (root) ─ (idle), (garbage collector), (program)
 *        └ handler (ours) ─ hashApiKey (ours) ─ digest (native)
 *                         ├ writev (native socket write)
 *                         ├ route (fastify) ─ anonymous (node core)
 *                         └ write (pino)
 */
const PROFILE: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 3, 10, 4]),
    frame(2, '(idle)', ''),
    frame(3, '(garbage collector)', ''),
    frame(10, '(program)', ''),
    frame(4, 'handler', `${DIST}/apps/edge/src/chat.js`, [5, 6, 7, 9], 9),
    frame(5, 'hashApiKey', `${DIST}/libs/auth/src/hash.js`, [11], 3),
    frame(11, 'digest', ''),
    frame(6, 'writev', ''),
    frame(7, 'route', 'file:///app/node_modules/fastify/lib/route.js', [8], 41),
    frame(8, '', 'node:internal/streams/writable'),
    frame(9, 'write', 'file:///app/node_modules/pino/lib/tools.js'),
  ],
  // Each sample is charged the delta that follows it (the time until the next sample); the
  // first delta (before the first sample) and the last sample count for nothing.
  samples: [2, 3, 4, 6, 8, 5, 11, 9, 10, 4],
  timeDeltas: [7, 1000, 100, 200, 200, 150, 150, 100, 60, 40],
};

const byName = (shares: readonly ProfileShare[]): Record<string, number> =>
  Object.fromEntries(shares.map((s) => [s.name, Math.round(s.pct * 1000) / 1000]));
const sum = (shares: readonly ProfileShare[]): number => shares.reduce((a, s) => a + s.pct, 0);

describe('summariseProfile', () => {
  const s = summariseProfile(PROFILE);

  it('counts sampled and idle time', () => {
    expect(s.sampledMs).toBe(2);
    expect(s.idlePct).toBe(50);
  });

  it('charges core and native frames to the nearest component up the stack, as shares of busy time', () => {
    expect(byName(s.components)).toEqual({
      'our code (apps/edge, libs)': 45,
      'socket write syscalls, for our code (apps/edge, libs)': 20,
      Fastify: 15,
      'V8 garbage collector': 10,
      'other packages (pino)': 6,
      'V8/native, not attributed (program)': 4,
    });
    expect(sum(s.components)).toBeCloseTo(100, 9);
    expect(s.components.map((c) => c.pct)).toEqual([...s.components.map((c) => c.pct)].sort((a, b) => b - a));
  });

  it('lists our functions by self time, with their file and 1-based line', () => {
    expect(byName(s.ourFunctions)).toEqual({
      'handler dist/apps/edge/src/chat.js:10': 20,
      'hashApiKey dist/libs/auth/src/hash.js:4': 15,
    });
    expect(s.ourFunctions[0]!.name).toMatch(/^handler /);
  });

  it('lists every function by self time, anonymous and native ones included', () => {
    expect(byName(s.topFunctions)).toEqual({
      'handler dist/apps/edge/src/chat.js:10': 20,
      writev: 20,
      '(anonymous) node:internal/streams/writable:1': 15,
      'hashApiKey dist/libs/auth/src/hash.js:4': 15,
      '(garbage collector)': 10,
      digest: 10,
      'write node_modules/pino/lib/tools.js:1': 6,
      '(program)': 4,
    });
    // route (fastify) ran only through its callee: no self time, so not listed.
    expect(s.topFunctions.some((f) => f.name.startsWith('route '))).toBe(false);
  });

  it('measures inclusive time of the watched paths', () => {
    expect(byName(s.paths)).toEqual({ 'SHA-256 of the API key (hashApiKey)': 25 });
  });

  it('charges frames with no library on the stack to the Node server, and drops shares under 0.1 %', () => {
    const lone = summariseProfile({
      nodes: [
        frame(1, '(root)', '', [2, 3]),
        frame(2, 'emit', 'node:events'),
        frame(3, 'tick', 'node:timers'),
      ],
      samples: [2, 3, 2],
      timeDeltas: [0, 9995, 5, 0],
    });
    expect(lone.idlePct).toBe(0);
    expect(lone.components).toEqual([
      { name: 'Node HTTP server, streams, event loop (no library on the stack)', pct: 100 },
    ]);
    expect(lone.topFunctions.map((f) => f.name)).toEqual(['emit node:events:1']);
  });
});
