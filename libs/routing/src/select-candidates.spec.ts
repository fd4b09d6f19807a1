import { describe, expect, it } from '@jest/globals';
import { type ProviderState, type RouteCandidate, type RouteTable } from './route-table.js';
import { sessionHash } from './rendezvous.js';
import { selectCandidates } from './select-candidates.js';

/** mulberry32: a small seeded generator so the statistical checks are reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cand(
  providerId: string,
  priority: number,
  weight: number,
  state: ProviderState = 'up',
): RouteCandidate {
  return { providerId, upstreamModel: 'm', priority, weight, state, reason: state };
}

/** Candidates must be given in rank order, as buildRouteTable publishes them. */
function tableOf(...ranked: RouteCandidate[]): RouteTable {
  return { version: 1, generatedAt: '', models: { m: ranked } };
}

function ids(list: RouteCandidate[]): string[] {
  return list.map((c) => c.providerId);
}

function firstPickShare(table: RouteTable, draws: number, seed: number): Map<string, number> {
  const random = seeded(seed);
  const counts = new Map<string, number>();
  for (let i = 0; i < draws; i++) {
    const first = selectCandidates(table, 'm', { random })[0]!.providerId;
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return new Map([...counts].map(([id, n]) => [id, n / draws]));
}

describe('selectCandidates', () => {
  it('returns nothing for an unknown model, including names of Object.prototype members', () => {
    const table = tableOf(cand('a', 0, 1));
    expect(selectCandidates(table, 'nope')).toEqual([]);
    expect(selectCandidates(table, 'constructor')).toEqual([]);
    expect(selectCandidates(table, '__proto__')).toEqual([]);
    expect(selectCandidates({ ...table, models: { m: [] } }, 'm')).toEqual([]);
  });

  it('returns a single usable candidate as is', () => {
    expect(ids(selectCandidates(tableOf(cand('a', 0, 1)), 'm'))).toEqual(['a']);
  });

  it('weights the first pick inside a tier: weight 2 comes first twice as often as weight 1', () => {
    const share = firstPickShare(tableOf(cand('heavy', 0, 2), cand('light', 0, 1)), 30_000, 42);
    expect(share.get('heavy')).toBeCloseTo(2 / 3, 1);
    expect(Math.abs(share.get('heavy')! - 2 / 3)).toBeLessThan(0.015);
  });

  it('weights three providers 3:2:1 and always returns each exactly once', () => {
    const table = tableOf(cand('w3', 0, 3), cand('w2', 0, 2), cand('w1', 0, 1));
    const share = firstPickShare(table, 60_000, 7);
    expect(Math.abs(share.get('w3')! - 3 / 6)).toBeLessThan(0.015);
    expect(Math.abs(share.get('w2')! - 2 / 6)).toBeLessThan(0.015);
    expect(Math.abs(share.get('w1')! - 1 / 6)).toBeLessThan(0.015);
    const random = seeded(1);
    for (let i = 0; i < 1000; i++)
      expect(ids(selectCandidates(table, 'm', { random })).sort()).toEqual(['w1', 'w2', 'w3']);
  });

  it('tries priority tiers in ascending order whatever the weights', () => {
    const table = tableOf(
      cand('p0a', 0, 1),
      cand('p0b', 0, 1),
      cand('p1a', 1, 100),
      cand('p1b', 1, 1),
      cand('p2', 2, 5),
    );
    const random = seeded(3);
    for (let i = 0; i < 2000; i++) {
      const order = ids(selectCandidates(table, 'm', { random }));
      expect(order.slice(0, 2).sort()).toEqual(['p0a', 'p0b']);
      expect(order.slice(2, 4).sort()).toEqual(['p1a', 'p1b']);
      expect(order[4]).toBe('p2');
    }
  });

  it('leaves down and disabled candidates out while any is up', () => {
    const table = tableOf(cand('up', 1, 1), cand('down', 0, 1, 'down'), cand('off', 0, 1, 'disabled'));
    expect(ids(selectCandidates(table, 'm'))).toEqual(['up']);
  });

  it('falls back to the down candidates in rank order when none is up, never to disabled ones', () => {
    const table = tableOf(cand('d0', 0, 1, 'down'), cand('d1', 1, 9, 'down'), cand('off', 0, 1, 'disabled'));
    expect(ids(selectCandidates(table, 'm'))).toEqual(['d0', 'd1']);
    expect(ids(selectCandidates(tableOf(cand('d', 0, 1, 'down')), 'm'))).toEqual(['d']);
  });

  it('returns nothing when every candidate is disabled', () => {
    expect(selectCandidates(tableOf(cand('off', 0, 1, 'disabled')), 'm')).toEqual([]);
    expect(selectCandidates(tableOf(cand('x', 0, 1, 'disabled'), cand('y', 0, 1, 'disabled')), 'm')).toEqual(
      [],
    );
  });

  it('never mutates the table', () => {
    const table = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('c', 0, 1));
    const before = JSON.stringify(table);
    for (let i = 0; i < 50; i++) selectCandidates(table, 'm', { random: seeded(i) });
    expect(JSON.stringify(table)).toBe(before);
  });

  describe('latency strategy', () => {
    function fast(id: string, latencyMs: number | null, priority = 0): RouteCandidate {
      return { ...cand(id, priority, 1), latencyMs };
    }

    it('sends most traffic to the fastest and the least to the slowest, whatever the priorities', () => {
      const table = tableOf(fast('slow', 400), fast('mid', 200, 1), fast('quick', 100, 2));
      const random = seeded(11);
      const counts = new Map<string, number>();
      for (let i = 0; i < 5000; i++) {
        const id = selectCandidates(table, 'm', { strategy: 'latency', random })[0]!.providerId;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      // weights 1/100², 1/200², 1/400²: about 76%, 19%, 5%
      expect(counts.get('quick')! / 5000).toBeGreaterThan(0.7);
      expect(counts.get('slow')!).toBeGreaterThan(0);
      expect(counts.get('slow')!).toBeLessThan(counts.get('mid')!);
    });

    it('treats an unknown latency as the median of the known ones', () => {
      const table = tableOf(fast('a', 100), fast('b', 100), fast('unknown', null));
      const random = seeded(5);
      let unknownFirst = 0;
      for (let i = 0; i < 3000; i++)
        if (selectCandidates(table, 'm', { strategy: 'latency', random })[0]!.providerId === 'unknown')
          unknownFirst++;
      expect(Math.abs(unknownFirst / 3000 - 1 / 3)).toBeLessThan(0.03);
    });
  });

  describe('least_inflight strategy', () => {
    it("orders by this edge's in-flight count, ties by priority", () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('c', 1, 1));
      const inflight = (id: string): number => ({ a: 5, b: 2, c: 2 })[id] ?? 0;
      for (let i = 0; i < 50; i++)
        expect(
          ids(selectCandidates(table, 'm', { strategy: 'least_inflight', inflight, random: seeded(i) })),
        ).toEqual(['b', 'c', 'a']);
    });

    it('shuffles by weight among equal counts and priorities', () => {
      const table = tableOf(cand('a', 0, 3), cand('b', 0, 1));
      const random = seeded(9);
      let aFirst = 0;
      for (let i = 0; i < 4000; i++)
        if (
          selectCandidates(table, 'm', { strategy: 'least_inflight', inflight: () => 1, random })[0]!
            .providerId === 'a'
        )
          aFirst++;
      expect(Math.abs(aFirst / 4000 - 0.75)).toBeLessThan(0.03);
    });
  });

  describe('half-open and local breaker', () => {
    it('puts half-open candidates after up ones, and one first on the trial share of calls', () => {
      const table = tableOf(cand('up', 0, 1), cand('trial', 0, 1, 'half_open'), cand('down', 0, 1, 'down'));
      const random = seeded(21);
      let trialFirst = 0;
      for (let i = 0; i < 10_000; i++) {
        const order = ids(selectCandidates(table, 'm', { random, halfOpenTrialFraction: 0.05 }));
        expect(order.sort()).toEqual(['trial', 'up']);
        if (selectCandidates(table, 'm', { random, halfOpenTrialFraction: 0.05 })[0]!.providerId === 'trial')
          trialFirst++;
      }
      expect(Math.abs(trialFirst / 10_000 - 0.05)).toBeLessThan(0.01);
      expect(ids(selectCandidates(table, 'm', { random }))).toEqual(['up', 'trial']);
    });

    it('leads with half-open candidates when nothing is up, and skips down ones', () => {
      const table = tableOf(cand('trial', 0, 1, 'half_open'), cand('down', 0, 1, 'down'));
      expect(ids(selectCandidates(table, 'm'))).toEqual(['trial']);
    });

    it('moves locally open candidates to the end, still tried as a last resort', () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 1, 1), cand('off', 0, 1, 'disabled'));
      const locallyOpen = (id: string): boolean => id === 'a';
      expect(ids(selectCandidates(table, 'm', { locallyOpen }))).toEqual(['b', 'a']);
      const downOnly = tableOf(cand('d1', 0, 1, 'down'), cand('d2', 1, 1, 'down'));
      expect(ids(selectCandidates(downOnly, 'm', { locallyOpen: (id) => id === 'd1' }))).toEqual([
        'd2',
        'd1',
      ]);
    });
  });

  describe('sessions (stickiness)', () => {
    const sessions = Array.from({ length: 400 }, (_, i) => sessionHash(`ses_${i}`));
    const first = (table: RouteTable, session: number, opts = {}): string =>
      selectCandidates(table, 'm', { random: seeded(session), ...opts }, session)[0]!.providerId;

    it('sends every call of a session to its home first, whatever the random draws and strategy', () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('c', 0, 1));
      for (const s of sessions.slice(0, 50)) {
        const home = first(table, s);
        for (let i = 0; i < 20; i++) {
          const random = seeded(i);
          expect(selectCandidates(table, 'm', { random }, s)[0]!.providerId).toBe(home);
          expect(selectCandidates(table, 'm', { random, strategy: 'least_inflight' }, s)[0]!.providerId).toBe(
            home,
          );
        }
      }
      const share = new Set(sessions.map((s) => first(table, s)));
      expect(share).toEqual(new Set(['a', 'b', 'c']));
    });

    it('keeps the strategy order behind the home, every candidate once', () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('low', 1, 1));
      for (const s of sessions.slice(0, 50)) {
        const order = ids(selectCandidates(table, 'm', { random: seeded(s) }, s));
        expect(order.slice(0, 2).sort()).toEqual(['a', 'b']);
        expect(order[2]).toBe('low');
      }
    });

    it('never sends a session to a lower tier, a down, half-open or locally open provider to stick', () => {
      const table = tableOf(
        cand('top', 0, 1),
        cand('low', 1, 1),
        cand('trial', 0, 1, 'half_open'),
        cand('down', 0, 1, 'down'),
      );
      for (const s of sessions) expect(first(table, s)).toBe('top');
      const two = tableOf(cand('a', 0, 1), cand('b', 0, 1));
      for (const s of sessions) expect(first(two, s, { locallyOpen: (id: string) => id === 'a' })).toBe('b');
    });

    it('moves only the sessions of a provider that goes down, and brings them back when it is up', () => {
      const up = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('c', 0, 1));
      const bDown = tableOf(cand('a', 0, 1), cand('c', 0, 1), cand('b', 0, 1, 'down'));
      const before = sessions.map((s) => first(up, s));
      const during = sessions.map((s) => first(bDown, s));
      sessions.forEach((_, i) => {
        if (before[i] !== 'b') expect(during[i]).toBe(before[i]);
        else expect(['a', 'c']).toContain(during[i]);
      });
      expect(sessions.map((s) => first(up, s))).toEqual(before);
    });

    it("leaves trial traffic to a half-open provider on its share of calls, sessions' included", () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 0, 1), cand('trial', 0, 1, 'half_open'));
      const random = seeded(5);
      let trials = 0;
      for (let i = 0; i < 4000; i++) {
        const s = sessions[i % sessions.length]!;
        if (
          selectCandidates(table, 'm', { random, halfOpenTrialFraction: 0.1 }, s)[0]!.providerId === 'trial'
        )
          trials++;
      }
      expect(Math.abs(trials / 4000 - 0.1)).toBeLessThan(0.02);
    });

    it('routes as before without a session', () => {
      const table = tableOf(cand('a', 0, 1), cand('b', 0, 1));
      const a = ids(selectCandidates(table, 'm', { random: seeded(8) }));
      expect(ids(selectCandidates(table, 'm', { random: seeded(8) }, null))).toEqual(a);
    });
  });
});
