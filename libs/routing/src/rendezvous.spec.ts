import { describe, expect, it } from '@jest/globals';
import { bringHomeFirst, fnv1a32, rendezvousScore, sessionHash } from './rendezvous.js';
import { type RouteCandidate } from './route-table.js';

function cand(providerId: string, weight = 1, priority = 0): RouteCandidate {
  return { providerId, upstreamModel: 'm', priority, weight, state: 'up', reason: 'up' };
}

/** Session keys shaped like the agents' own (UUIDs), deterministic so every count is exact. */
const SESSIONS = Array.from(
  { length: 20_000 },
  (_, i) => `4e32feea-d6e7-4377-95dd-${i.toString(16).padStart(12, '0')}`,
).map(sessionHash);

/** Each session's home among `list` (a copy is reordered, the list is left alone). */
function homes(list: readonly RouteCandidate[]): string[] {
  return SESSIONS.map((s) => bringHomeFirst([...list], s)!.providerId);
}

function shares(assigned: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of assigned) counts.set(id, (counts.get(id) ?? 0) + 1);
  return new Map([...counts].map(([id, n]) => [id, n / assigned.length]));
}

describe('fnv1a32', () => {
  it('is FNV-1a: the published test vectors', () => {
    // From the FNV reference (isthe.com/chongo/tech/comp/fnv): "" and "a", "foobar".
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('continues from a seed: hashing a then b equals hashing ab', () => {
    expect(fnv1a32('bar', fnv1a32('foo'))).toBe(fnv1a32('foobar'));
  });
});

describe('rendezvous hashing of sessions onto providers', () => {
  const three = [cand('a'), cand('b'), cand('c')];

  it('is consistent: a session always has the same home, whatever the order of the list', () => {
    const once = homes(three);
    expect(homes(three)).toEqual(once);
    expect(homes([cand('c'), cand('a'), cand('b')])).toEqual(once);
  });

  it('spreads sessions evenly over providers of equal weight', () => {
    const share = shares(homes(three));
    for (const id of ['a', 'b', 'c']) expect(Math.abs(share.get(id)! - 1 / 3)).toBeLessThan(0.02);
  });

  it('gives a provider of weight 2 twice the sessions of one of weight 1', () => {
    const share = shares(homes([cand('heavy', 2), cand('light', 1)]));
    expect(Math.abs(share.get('heavy')! - 2 / 3)).toBeLessThan(0.02);
  });

  it('moves only the sessions of a provider that leaves, spread over the others', () => {
    const before = homes(three);
    const after = homes([cand('a'), cand('c')]);
    const moved = before.flatMap((home, i) => (home === after[i] ? [] : [home]));
    expect(new Set(moved)).toEqual(new Set(['b']));
    expect(moved.length).toBe(before.filter((h) => h === 'b').length);
    const landed = shares(after.filter((_, i) => before[i] === 'b'));
    expect(Math.abs(landed.get('a')! - 0.5)).toBeLessThan(0.03);
  });

  it('gives a provider that joins only sessions of its own share, taken evenly from the others', () => {
    const before = homes(three);
    const after = homes([...three, cand('d')]);
    const moved = after.filter((home, i) => home !== before[i]);
    expect(new Set(moved)).toEqual(new Set(['d']));
    expect(Math.abs(moved.length / SESSIONS.length - 1 / 4)).toBeLessThan(0.02);
  });

  it('draws the home among the best priority only, never a lower tier to stick', () => {
    const tiers = [cand('low-a', 1, 1), cand('top', 1, 0), cand('low-b', 1, 1)];
    expect(new Set(homes(tiers))).toEqual(new Set(['top']));
  });

  it('keeps the others in their order behind the home, and answers null for no candidate', () => {
    const list = [cand('a'), cand('b'), cand('c'), cand('d')];
    const session = SESSIONS.find((s) => bringHomeFirst([...list], s)!.providerId === 'c')!;
    bringHomeFirst(list, session);
    expect(list.map((c) => c.providerId)).toEqual(['c', 'a', 'b', 'd']);
    expect(bringHomeFirst([], session)).toBeNull();
  });

  it('scores in (0, infinity) and proportionally to the weight', () => {
    const s = SESSIONS[0]!;
    expect(rendezvousScore(s, 'a', 1)).toBeGreaterThan(0);
    expect(Number.isFinite(rendezvousScore(s, 'a', 1))).toBe(true);
    expect(rendezvousScore(s, 'a', 3)).toBeCloseTo(3 * rendezvousScore(s, 'a', 1), 9);
  });
});
