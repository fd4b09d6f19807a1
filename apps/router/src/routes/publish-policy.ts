import { type RouteTable } from '#libs/routing';

/** Share by which a latency must move before it is worth republishing sooner than the probe interval. */
const LATENCY_MOVE = 0.25;

export interface PublishTiming {
  readonly probeIntervalMs: number;
  /** Republish an unchanged table this often. */
  readonly refreshMs: number;
  /** How often the leader re-evaluates (the floor for latency-driven republishes). */
  readonly evaluateMs: number;
}

export interface Published {
  readonly table: RouteTable;
  readonly at: number;
}

/**
 * What to do with a freshly built table: 'new' publishes it under a new version, 'same' republishes
 * the last one unchanged (keeps the key fresh), null does nothing.
 * - a state or ranking change: at once;
 * - a latency that appeared, vanished or moved by a quarter: within `evaluateMs`;
 * - any other reason or figure change: at most once per probe interval;
 * - nothing changed: 'same' every `refreshMs`.
 */
export function publishDecision(
  last: Published | null,
  draft: RouteTable,
  now: number,
  timing: PublishTiming,
): 'new' | 'same' | null {
  if (!last) return 'new';
  if (stateSignature(draft) !== stateSignature(last.table)) return 'new';
  const age = now - last.at;
  if (JSON.stringify(draft.models) !== JSON.stringify(last.table.models)) {
    if (age >= timing.probeIntervalMs) return 'new';
    if (age >= Math.min(timing.evaluateMs, timing.probeIntervalMs) && latencyMoved(last.table, draft))
      return 'new';
    return null;
  }
  return age >= timing.refreshMs ? 'same' : null;
}

/** The candidates' order and states: what edges route on, and what must reach them at once. */
function stateSignature(table: RouteTable): string {
  return Object.entries(table.models)
    .map(([model, list]) => `${model}:${list.map((c) => `${c.providerId}=${c.state}`).join(',')}`)
    .join(';');
}

function latencyMoved(before: RouteTable, after: RouteTable): boolean {
  for (const [model, list] of Object.entries(after.models)) {
    for (const c of list) {
      const was = before.models[model]?.find((p) => p.providerId === c.providerId)?.latencyMs ?? null;
      const now = c.latencyMs ?? null;
      if (was === null || now === null) {
        if (was !== now) return true;
      } else if (Math.abs(now - was) > LATENCY_MOVE * Math.max(was, 1)) return true;
    }
  }
  return false;
}
