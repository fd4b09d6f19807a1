// The provider types as the console describes them (GET /api/admin/config/provider-types): their
// labels, settings (JSON Schema), base URL, probe and credential rules. The web code renders from
// these and holds no list of types or per-type rule: a type added on the server shows up here.
import { api } from '../api.js';

let loading = null;

/** The types, fetched once a page load (they change only with the console's code). */
export function loadProviderTypes() {
  loading ??= api.get('/api/admin/config/provider-types').then(
    ({ types }) => types,
    (err) => {
      // A failed load (a network blip) is tried again by the next caller rather than kept.
      loading = null;
      throw err;
    },
  );
  return loading;
}

/** The view of one type, or null for a type the console does not know (a document from elsewhere). */
export function typeOf(types, type) {
  return types.find((t) => t.type === type) ?? null;
}

/** The settings' properties of a type as [name, JSON Schema] pairs, in the schema's order. */
export function settingsOf(view) {
  return Object.entries(view?.settings?.properties ?? {});
}

/** Whether the type's schema requires this setting. */
export function isRequired(view, name) {
  return (view?.settings?.required ?? []).includes(name);
}
