import { type RoutingStrategy } from '#libs/config';
import { bringHomeFirst } from './rendezvous.js';
import { type RouteCandidate, type RouteTable } from './route-table.js';

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

/**
 * The candidates the edge should try for one request, in order. Relies on the table being ranked
 * as buildRouteTable ranks it (up, half_open, down, disabled; then priority ascending).
 *
 * - 'up' candidates, ordered by the strategy:
 *   priority: tiers by priority; inside a tier, a weighted random order (weight 2 first twice as
 *     often as weight 1);
 *   latency: one weighted random order over all of them, weight x 1/latency² (unknown latency counts
 *     as the median of the known ones), so the fastest gets most traffic and the others keep
 *     receiving a little, which keeps their figures fresh;
 *   least_inflight: fewest requests in flight at this edge first; ties by priority, then weighted random.
 *   With a `session` (the hash of an agent session, see rendezvous.ts), its home among the usable
 *   'up' candidates of the best priority goes first instead (the strategy orders the rest), so
 *   the session's turns find the provider that holds their prompt cache.
 * - then 'half_open' ones in rank order; on a `halfOpenTrialFraction` share of calls one of them
 *   goes first instead (its trial traffic), sessions' calls included: a provider serving only
 *   agents would otherwise never close its breaker. With nothing up they simply come first.
 * - 'down' ones only when nothing is up or half-open, in rank order (a probe can be wrong, and the
 *   edge fails over anyway).
 * - candidates this edge's breaker has open move to the end, still tried as a last resort.
 * - 'disabled' never.
 */
export function selectCandidates(
  table: RouteTable,
  modelId: string,
  opts: SelectOptions = {},
  session: number | null = null,
): RouteCandidate[] {
  // hasOwn: the model ID comes from the client, and "constructor" must not find Object.prototype.
  if (!Object.hasOwn(table.models, modelId)) return [];
  const ranked = table.models[modelId] as readonly RouteCandidate[];
  const first = ranked[0];
  if (first === undefined) return [];
  // The common case, per request: nothing to order.
  if (ranked.length === 1) return first.state === 'disabled' ? [] : [first];

  const random = opts.random ?? Math.random;
  const up: RouteCandidate[] = [];
  const halfOpen: RouteCandidate[] = [];
  const down: RouteCandidate[] = [];
  for (const c of ranked) {
    if (c.state === 'up') up.push(c);
    else if (c.state === 'half_open') halfOpen.push(c);
    else if (c.state === 'down') down.push(c);
  }
  const lastResort: RouteCandidate[] = [];
  const locallyOpen = opts.locallyOpen;
  const keep = locallyOpen
    ? (list: RouteCandidate[]): RouteCandidate[] =>
        list.filter((c) => (locallyOpen(c.providerId) ? (lastResort.push(c), false) : true))
    : (list: RouteCandidate[]): RouteCandidate[] => list;

  const usable = orderUp(keep(up), opts, random);
  if (session !== null) bringHomeFirst(usable, session);
  const trials = keep(halfOpen);
  let order: RouteCandidate[];
  if (trials.length > 0 && usable.length > 0 && random() < (opts.halfOpenTrialFraction ?? 0)) {
    const pick = Math.floor(random() * trials.length) % trials.length;
    order = [trials[pick]!, ...usable, ...trials.filter((_, i) => i !== pick)];
  } else {
    order = [...usable, ...trials];
  }
  if (up.length === 0 && halfOpen.length === 0) order.push(...keep(down));
  if (lastResort.length > 0) order.push(...lastResort);
  return order;
}

function orderUp(up: RouteCandidate[], opts: SelectOptions, random: () => number): RouteCandidate[] {
  if (up.length < 2) return up;
  switch (opts.strategy ?? 'priority') {
    case 'priority':
      return shuffleGroups(up, (a, b) => a.priority === b.priority, weightOf, random);
    case 'latency':
      return byLatency(up, random);
    case 'least_inflight': {
      const inflight = opts.inflight ?? (() => 0);
      const counts = new Map(up.map((c) => [c, inflight(c.providerId)]));
      const sorted = [...up].sort((a, b) => counts.get(a)! - counts.get(b)! || a.priority - b.priority);
      return shuffleGroups(
        sorted,
        (a, b) => counts.get(a) === counts.get(b) && a.priority === b.priority,
        weightOf,
        random,
      );
    }
  }
}

function weightOf(c: RouteCandidate): number {
  return c.weight;
}

function byLatency(up: RouteCandidate[], random: () => number): RouteCandidate[] {
  const known = up
    .map((c) => c.latencyMs)
    .filter((v): v is number => typeof v === 'number' && v > 0)
    .sort((a, b) => a - b);
  if (known.length === 0) return shuffleGroups(up, () => true, weightOf, random);
  const median = known[Math.floor(known.length / 2)]!;
  const score = new Map(
    up.map((c) => {
      const ms = typeof c.latencyMs === 'number' && c.latencyMs > 0 ? c.latencyMs : median;
      return [c, c.weight / (ms * ms)];
    }),
  );
  return shuffleGroups(
    up,
    () => true,
    (c) => score.get(c)!,
    random,
  );
}

/** Copies `items` and weighted-shuffles each run of neighbours that `same` groups together. */
function shuffleGroups(
  items: readonly RouteCandidate[],
  same: (a: RouteCandidate, b: RouteCandidate) => boolean,
  weight: (c: RouteCandidate) => number,
  random: () => number,
): RouteCandidate[] {
  const order = [...items];
  let start = 0;
  for (let i = 1; i <= order.length; i++) {
    if (i === order.length || !same(order[i]!, order[start]!)) {
      if (i - start > 1) weightedShuffle(order, start, i, weight, random);
      start = i;
    }
  }
  return order;
}

/** In place on [start, end): draw without replacement, each pick proportional to its weight. */
function weightedShuffle(
  items: RouteCandidate[],
  start: number,
  end: number,
  weight: (c: RouteCandidate) => number,
  random: () => number,
): void {
  let total = 0;
  for (let i = start; i < end; i++) total += weight(items[i]!);
  for (let slot = start; slot < end - 1; slot++) {
    let r = random() * total;
    let pick = slot;
    // Rounding can leave r >= 0 after the last item; the last item is then the pick.
    while (pick < end - 1) {
      r -= weight(items[pick]!);
      if (r < 0) break;
      pick++;
    }
    const chosen = items[pick]!;
    items[pick] = items[slot]!;
    items[slot] = chosen;
    total -= weight(chosen);
  }
}
