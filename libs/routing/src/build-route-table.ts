import { type Catalog, type ProviderRuntime } from '#libs/config';
import { type ProviderHealth } from './provider-health.js';
import { type ProviderState, type RouteCandidate, type RouteTable } from './route-table.js';

export const NO_PROBE_YET = 'no probe yet';

const STATE_RANK: Readonly<Record<ProviderState, number>> = { up: 0, half_open: 1, down: 2, disabled: 3 };

function candidateOf(
  provider: ProviderRuntime,
  upstreamModel: string,
  health: ReadonlyMap<string, ProviderHealth>,
): RouteCandidate {
  const base = {
    providerId: provider.id,
    upstreamModel,
    priority: provider.priority,
    weight: provider.weight,
  };
  if (provider.disabledReason !== null)
    return { ...base, state: 'disabled', reason: provider.disabledReason };
  const h = health.get(provider.id);
  if (!h) return { ...base, state: 'up', reason: NO_PROBE_YET };
  return { ...base, state: h.state, reason: h.reason };
}

/** Usable first, then lower priority number, then heavier weight; ties keep config order (stable sort). */
function byRank(a: RouteCandidate, b: RouteCandidate): number {
  return STATE_RANK[a.state] - STATE_RANK[b.state] || a.priority - b.priority || b.weight - a.weight;
}

/**
 * The ranked candidates of every configured model. A model no provider serves gets an empty list,
 * so the edge can tell "no route" from "unknown model".
 */
export function buildRouteTable(
  catalog: Catalog,
  health: ReadonlyMap<string, ProviderHealth>,
  version: number,
  now: Date,
): RouteTable {
  const byModel = new Map<string, RouteCandidate[]>(catalog.config.models.map((m) => [m.id, []]));
  for (const provider of catalog.providers.values()) {
    const seen = new Set<string>();
    for (const served of provider.models) {
      const list = byModel.get(served.id);
      // A provider listing the same model twice serves it once, with its first upstream name.
      if (!list || seen.has(served.id)) continue;
      seen.add(served.id);
      list.push(candidateOf(provider, served.upstream, health));
    }
  }
  const models = Object.fromEntries([...byModel].map(([id, list]) => [id, list.sort(byRank)]));
  return { version, generatedAt: now.toISOString(), models };
}
