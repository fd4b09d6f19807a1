import { type Catalog, type CatalogSnapshot, type ProviderRuntime } from '#libs/config';
import { type CandidateHealth, type CandidateHealthLookup } from './health-book.js';
import { type ProviderHealth } from './provider-health.js';
import { type ProviderState, type RouteCandidate, type RouteTable } from './route-table.js';

export const NO_PROBE_YET = 'no probe yet';

const STATE_RANK: Readonly<Record<ProviderState, number>> = { up: 0, half_open: 1, down: 2, disabled: 3 };

/** "12:00:03" in UTC: what an operator compares with the logs. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.ceil(ms / 1000))}s`;
}

/** State and reason from the passive side, or null when it has nothing against the candidate. */
function passiveVerdict(
  passive: CandidateHealth,
  now: number,
): { state: ProviderState; reason: string } | null {
  const { breaker, stats } = passive;
  if (breaker.phase === 'open')
    return {
      state: 'down',
      reason: `breaker open: ${breaker.cause}, half-open in ${seconds(breaker.until - now)}`,
    };
  if (stats.rateLimitedUntil !== null) {
    const retry = stats.retryAfterMs === null ? '' : ` (retry-after ${seconds(stats.retryAfterMs)})`;
    return { state: 'down', reason: `rate limited until ${clock(stats.rateLimitedUntil)}${retry}` };
  }
  if (breaker.phase === 'half_open')
    return {
      state: 'half_open',
      reason: `breaker half-open: ${breaker.successes} trial success(es) so far, after ${breaker.cause}`,
    };
  return null;
}

function upReason(passive: CandidateHealth | undefined, probeReason: string): string {
  const s = passive?.stats;
  if (!s || s.latencyP50Ms === null) return probeReason;
  return `up: p50 ${s.latencyP50Ms}ms, errors ${Math.round(s.errorRate * 100)}%; ${probeReason}`;
}

function candidateOf(
  provider: ProviderRuntime,
  modelId: string,
  upstreamModel: string,
  health: ReadonlyMap<string, ProviderHealth>,
  passiveLookup: CandidateHealthLookup | undefined,
  now: number,
): Built {
  const base = {
    providerId: provider.id,
    upstreamModel,
    priority: provider.priority,
    weight: provider.weight,
  };
  if (provider.disabledReason !== null)
    return { candidate: { ...base, state: 'disabled', reason: provider.disabledReason }, measured: false };
  const h = health.get(provider.id);
  const probeReason = h?.reason ?? NO_PROBE_YET;
  if (!passiveLookup) {
    const candidate: RouteCandidate = h
      ? { ...base, state: h.state, reason: h.reason }
      : { ...base, state: 'up', reason: NO_PROBE_YET };
    return { candidate, measured: false };
  }

  const passive = passiveLookup(provider.id, modelId);
  const figures = {
    latencyMs: passive?.stats.latencyEwmaMs ?? h?.latencyMs ?? null,
    ttftMs: passive?.stats.ttftEwmaMs ?? null,
    errorRate: passive?.stats.errorRate ?? 0,
  };
  const measured = (passive?.stats.latencyEwmaMs ?? null) !== null;
  // A failing probe takes the provider down for all its models, whatever the samples say.
  if (h?.state === 'down')
    return { candidate: { ...base, state: 'down', reason: h.reason, ...figures }, measured };
  const verdict = passive && passiveVerdict(passive, now);
  if (verdict) return { candidate: { ...base, ...verdict, ...figures }, measured };
  return {
    candidate: { ...base, state: 'up', reason: upReason(passive, probeReason), ...figures },
    measured,
  };
}

interface Built {
  readonly candidate: RouteCandidate;
  /** Its latency comes from real requests (not from a probe). */
  readonly measured: boolean;
}

/**
 * A probe (a model listing) is far quicker than a completion: once any candidate of a model has a
 * measured latency, probe latencies are dropped (null, "unknown") so they cannot pass for fast.
 */
function comparableLatencies(built: readonly Built[]): RouteCandidate[] {
  if (!built.some((b) => b.measured)) return built.map((b) => b.candidate);
  return built.map((b) =>
    b.measured || b.candidate.latencyMs === undefined ? b.candidate : { ...b.candidate, latencyMs: null },
  );
}

/** Usable first, then lower priority number, then heavier weight; ties keep config order (stable sort). */
function byRank(a: RouteCandidate, b: RouteCandidate): number {
  return STATE_RANK[a.state] - STATE_RANK[b.state] || a.priority - b.priority || b.weight - a.weight;
}

/**
 * The ranked candidates of every configured model. A model no provider serves gets an empty list,
 * so the edge can tell "no route" from "unknown model".
 *
 * `passive` (the router's stats and breakers per provider and model) is optional: without it the
 * table rests on probes alone, as an edge's bootstrap table does. With it, each candidate also
 * carries latencyMs, ttftMs and errorRate, and is down while its breaker is open or it is rate
 * limited, half_open while its breaker is.
 */
export function buildRouteTable(
  catalog: Catalog | CatalogSnapshot,
  health: ReadonlyMap<string, ProviderHealth>,
  version: number,
  now: Date,
  passive?: CandidateHealthLookup,
): RouteTable {
  const nowMs = now.getTime();
  const byModel = new Map<string, Built[]>(catalog.config.models.map((m) => [m.id, []]));
  for (const provider of catalog.providers.values()) {
    const seen = new Set<string>();
    for (const served of provider.models) {
      const list = byModel.get(served.id);
      // A provider listing the same model twice serves it once, with its first upstream name.
      if (!list || seen.has(served.id)) continue;
      seen.add(served.id);
      list.push(candidateOf(provider, served.id, served.upstream, health, passive, nowMs));
    }
  }
  const models = Object.fromEntries(
    [...byModel].map(([id, list]) => [id, comparableLatencies(list).sort(byRank)]),
  );
  return { version, generatedAt: now.toISOString(), models };
}
