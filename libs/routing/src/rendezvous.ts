import { type RouteCandidate } from './route-table.js';

/**
 * Rendezvous (highest random weight) hashing of agent sessions onto providers: each session ranks
 * every provider by a hash of (session, provider) and goes to its highest. A provider leaving the
 * set moves only the sessions it ranked first, and coming back takes exactly those back, with no
 * state shared between edges: every edge computes the same home. Allocation-free, for the hot path.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TWO_32 = 4294967296;

/**
 * FNV-1a (32 bits) over the string's UTF-16 code units, from `seed`: fast, allocation-free, and
 * the same on every edge. Not cryptographic: it spreads keys, it does not hide them.
 */
export function fnv1a32(text: string, seed: number = FNV_OFFSET): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** murmur3's finalizer: FNV's last characters barely reach the high bits, which the score reads. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The hash of a session key, computed once per request; it is what routing sees, never the key. */
export function sessionHash(key: string): number {
  return mix32(fnv1a32(key));
}

/**
 * The session's score at one provider: weight / -ln(u), u uniform in (0, 1) drawn from the
 * (session, provider) hash. The highest score wins, and a provider of weight w wins a share
 * w / (sum of weights) of sessions (weighted rendezvous hashing).
 */
export function rendezvousScore(session: number, providerId: string, weight: number): number {
  const u = (mix32(fnv1a32(providerId, session)) + 0.5) / TWO_32;
  return weight / -Math.log(u);
}

/**
 * Moves the session's home to the front of `order`, in place, and returns it; the others keep
 * their order behind it (the failover order). The home is drawn among the candidates of the best
 * (lowest) priority only: a session never goes to a lower tier just to stick.
 */
export function bringHomeFirst(order: RouteCandidate[], session: number): RouteCandidate | null {
  if (order.length === 0) return null;
  let tier = order[0]!.priority;
  for (let i = 1; i < order.length; i++) if (order[i]!.priority < tier) tier = order[i]!.priority;
  let best = -1;
  let bestScore = -1;
  for (let i = 0; i < order.length; i++) {
    const c = order[i]!;
    if (c.priority !== tier) continue;
    const score = rendezvousScore(session, c.providerId, c.weight);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  const home = order[best]!;
  for (let i = best; i > 0; i--) order[i] = order[i - 1]!;
  order[0] = home;
  return home;
}
