// The configuration document as the pages change it: pure functions over the draft (a model's
// providers and groups, renaming and removing a model everywhere, whether a model can be served).

/** The model ids a provider entry serves (its `models` as strings or `{id, upstream}`). */
export const servedIds = (p) => (p.models ?? []).map((m) => (typeof m === 'string' ? m : m?.id));

/**
 * Whether a model of the draft can be served, and if not why: no provider serves it, or every
 * one that does is disabled or cannot be used (its key missing: the catalog's disabledReason).
 */
export function availabilityOf(modelId, draft, live) {
  const serving = draft.providers.filter((p) => servedIds(p).includes(modelId));
  if (serving.length === 0) return { available: false, reason: 'no provider serves it' };
  const reasons = serving.map((p) => {
    if (p.enabled === false) return `${p.id}: disabled in the configuration`;
    const why = live.byId.get(p.id)?.disabledReason;
    return why ? `${p.id}: ${why}` : null;
  });
  if (reasons.some((r) => r === null)) return { available: true, reason: null };
  return { available: false, reason: reasons.join('; ') };
}

/** A group's model ids, whichever of its two shapes it has. */
export function groupModels(group) {
  return Array.isArray(group) ? group : (group?.models ?? []);
}

/** The group with these model ids, keeping its shape and its other settings. */
export function withGroupModels(group, models) {
  return Array.isArray(group) || group === undefined ? models : { ...group, models };
}

const renameServed = (m, from, to) =>
  typeof m === 'string' ? (m === from ? to : m) : m?.id === from ? { ...m, id: to } : m;

/** The document without a model: out of every provider's and group's list too. */
export function withoutModel(doc, id) {
  return {
    models: doc.models.filter((m) => m.id !== id),
    providers: doc.providers.map((p) =>
      servedIds(p).includes(id)
        ? { ...p, models: p.models.filter((m) => (typeof m === 'string' ? m : m?.id) !== id) }
        : p,
    ),
    groups: Object.fromEntries(
      Object.entries(doc.groups).map(([n, g]) => [
        n,
        withGroupModels(
          g,
          groupModels(g).filter((m) => m !== id),
        ),
      ]),
    ),
  };
}

/** The document with the entry at `index`, renamed everywhere if its id changed, in exactly `groups`. */
export function withModel(doc, { index, original, entry, groups }) {
  const from = original?.id;
  const models = [...doc.models];
  models[index] = entry;
  const renamed = (ids) => ids.map((m) => (m === from ? entry.id : m));
  return {
    models,
    providers:
      from && from !== entry.id
        ? doc.providers.map((p) => ({
            ...p,
            models: (p.models ?? []).map((m) => renameServed(m, from, entry.id)),
          }))
        : doc.providers,
    groups: Object.fromEntries(
      Object.entries(doc.groups).map(([name, g]) => {
        const ids = renamed(groupModels(g)).filter((m) => m !== entry.id);
        return [name, withGroupModels(g, groups.includes(name) ? [...ids, entry.id] : ids)];
      }),
    ),
  };
}
