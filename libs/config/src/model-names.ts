import { type z } from 'zod';

/** What the alias and fallback rules read of a model entry. */
export interface NamedModel {
  readonly id: string;
  readonly aliases?: readonly string[] | undefined;
  readonly fallbacks?: readonly string[] | undefined;
}

/**
 * Every alias names one model and nothing else: not a model id (a request naming it would be
 * ambiguous), not another alias. Each error names the alias's field.
 */
export function checkAliases(models: readonly NamedModel[], ctx: z.RefinementCtx): void {
  const ids = new Set(models.map((m) => m.id));
  const owner = new Map<string, string>();
  models.forEach((m, i) => {
    m.aliases?.forEach((alias, j) => {
      const path = ['models', i, 'aliases', j];
      if (ids.has(alias)) {
        ctx.addIssue({ code: 'custom', path, message: `alias ${alias} is the id of a model` });
        return;
      }
      const taken = owner.get(alias);
      if (taken !== undefined) {
        const whose = taken === m.id ? 'this model' : `model ${taken}`;
        ctx.addIssue({ code: 'custom', path, message: `alias ${alias} is already an alias of ${whose}` });
        return;
      }
      owner.set(alias, m.id);
    });
  });
}

/**
 * Fallbacks name models by id (an alias is not followed), never the model itself nor one twice,
 * and the chains they make have no cycle: a model's chain is its fallbacks, each followed by its
 * own, so a cycle would make the order of a chain a matter of where one entered it.
 */
export function checkFallbacks(models: readonly NamedModel[], ctx: z.RefinementCtx): void {
  const ids = new Set(models.map((m) => m.id));
  models.forEach((m, i) => {
    const seen = new Set<string>();
    m.fallbacks?.forEach((to, j) => {
      const path = ['models', i, 'fallbacks', j];
      const message =
        to === m.id
          ? 'a model cannot fall back to itself'
          : !ids.has(to)
            ? `unknown model ${to} (not in models; name a model by its id, not an alias)`
            : seen.has(to)
              ? `${to} is named twice`
              : null;
      if (message !== null) ctx.addIssue({ code: 'custom', path, message });
      seen.add(to);
    });
  });
  for (const cycle of fallbackCycles(models)) {
    ctx.addIssue({
      code: 'custom',
      path: ['models', cycle.at, 'fallbacks', cycle.index],
      message: `fallback cycle: ${cycle.ids.join(' -> ')}`,
    });
  }
}

interface Cycle {
  /** The model entry and fallback index whose edge closes the cycle. */
  readonly at: number;
  readonly index: number;
  readonly ids: readonly string[];
}

/** Each cycle of the fallback graph once, reported at the edge that closes it (depth first). */
function fallbackCycles(models: readonly NamedModel[]): Cycle[] {
  const index = new Map(models.map((m, i) => [m.id, i]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: Cycle[] = [];
  const visit = (id: string): void => {
    state.set(id, 'open');
    path.push(id);
    const at = index.get(id)!;
    models[at]!.fallbacks?.forEach((to, j) => {
      if (to === id || !index.has(to)) return; // reported as a bad fallback already
      const s = state.get(to);
      if (s === 'open') cycles.push({ at, index: j, ids: [...path.slice(path.indexOf(to)), to] });
      else if (s === undefined) visit(to);
    });
    path.pop();
    state.set(id, 'done');
  };
  for (const m of models) if (!state.has(m.id)) visit(m.id);
  return cycles;
}

/**
 * Each model's whole fallback chain, in the order it is tried: its fallbacks, each followed by
 * its own chain, every model once and never the model itself. Models without fallbacks are absent.
 */
export function fallbackChains(models: readonly NamedModel[]): Map<string, readonly string[]> {
  const byId = new Map(models.map((m) => [m.id, m]));
  const chains = new Map<string, readonly string[]>();
  for (const m of models) {
    if (!m.fallbacks?.length) continue;
    const chain: string[] = [];
    const seen = new Set([m.id]);
    const walk = (fallbacks: readonly string[] | undefined): void => {
      for (const to of fallbacks ?? []) {
        if (seen.has(to) || !byId.has(to)) continue;
        seen.add(to);
        chain.push(to);
        walk(byId.get(to)!.fallbacks);
      }
    };
    walk(m.fallbacks);
    chains.set(m.id, chain);
  }
  return chains;
}
