import { type RoutingStrategy } from '#libs/config';
import { type RouteCandidate, type RouteTable } from './route-table.js';

/**
 * The candidates the edge should try for one request, in order. Relies on the table being ranked
 * as buildRouteTable ranks it ('up' first, then priority ascending), so the usable candidates are a
 * prefix and each priority tier is contiguous.
 *
 * - Usable ('up') candidates: tiers by priority; inside a tier, a weighted random order (a provider
 *   with weight 2 comes first twice as often as one with weight 1).
 * - None usable: the 'down' ones in rank order, since a probe can be wrong and the edge fails over.
 * - 'disabled' candidates are never returned.
 */
export interface SelectOptions {
  readonly strategy?: RoutingStrategy;
  readonly random?: () => number;
  /** This edge's requests in flight per provider, for `least_inflight`. */
  readonly inflight?: (providerId: string) => number;
  /** This edge's own breaker: true when it has the provider open (skipped unless nothing else is left). */
  readonly locallyOpen?: (providerId: string) => boolean;
  /** Share of requests on which a half-open candidate goes first (its trial traffic). */
  readonly halfOpenTrialFraction?: number;
}

export function selectCandidates(
  table: RouteTable,
  modelId: string,
  opts: SelectOptions = {},
): RouteCandidate[] {
  const random = opts.random ?? Math.random;
  // hasOwn: the model ID comes from the client, and "constructor" must not find Object.prototype.
  if (!Object.hasOwn(table.models, modelId)) return [];
  const ranked = table.models[modelId] as readonly RouteCandidate[];
  const first = ranked[0];
  if (first === undefined) return [];
  if (ranked.length === 1) return first.state === 'disabled' ? [] : [first];

  let usable = 0;
  while (usable < ranked.length && ranked[usable]!.state === 'up') usable++;
  if (usable === 0) return ranked.filter((c) => c.state === 'down');
  if (usable === 1) return [first];

  const order = ranked.slice(0, usable);
  let tierStart = 0;
  for (let i = 1; i <= usable; i++) {
    if (i === usable || order[i]!.priority !== order[tierStart]!.priority) {
      if (i - tierStart > 1) weightedShuffle(order, tierStart, i, random);
      tierStart = i;
    }
  }
  return order;
}

/** In place on [start, end): draw without replacement, each pick proportional to weight. */
function weightedShuffle(items: RouteCandidate[], start: number, end: number, random: () => number): void {
  let total = 0;
  for (let i = start; i < end; i++) total += items[i]!.weight;
  for (let slot = start; slot < end - 1; slot++) {
    let r = random() * total;
    let pick = slot;
    // Rounding can leave r >= 0 after the last item; the last item is then the pick.
    while (pick < end - 1) {
      r -= items[pick]!.weight;
      if (r < 0) break;
      pick++;
    }
    const chosen = items[pick]!;
    items[pick] = items[slot]!;
    items[slot] = chosen;
    total -= chosen.weight;
  }
}
