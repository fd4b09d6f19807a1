// The live configuration as the admin pages edit it: the version loaded, a draft of its document
// (providers, models, groups) that the forms change, and the save that sends the whole draft made
// on that version. The draft lives in this tab's memory only: a reload, a discard or a conflict
// (someone saved first) starts again from the newest version.
import { api } from '../api.js';
import { getSession } from '../session.js';
import { confirmDialog } from '../dom.js';

let state = null;
/** A message for the next render (why the draft was dropped), shown once. */
let notice = null;

function normalised(document) {
  return {
    ...document,
    providers: Array.isArray(document?.providers) ? document.providers : [],
    models: Array.isArray(document?.models) ? document.models : [],
    groups: document?.groups && typeof document.groups === 'object' ? document.groups : {},
  };
}

/**
 * `{view, draft, hints, dirty}`: the newest version, or, while a draft has unsaved changes, the
 * version it was made on. `hints`: stored secret id -> its hint (never a value).
 */
export async function loadConfig() {
  if (state?.dirty) return state;
  const view = await api.get('/api/admin/config');
  // Auditors read the configuration and change nothing: the pages show it as for a file source.
  if (getSession()?.user.role === 'auditor') Object.assign(view, { editable: false, readOnlyRole: true });
  state = {
    view,
    draft: normalised(structuredClone(view.document)),
    hints: { ...view.secrets },
    dirty: false,
  };
  return state;
}

/** Changes the draft in place; the page then renders from it. */
export function editDraft(change) {
  change(state.draft);
  state.dirty = true;
}

export function discardDraft(why = null) {
  state = null;
  notice = why;
}

/** The reason the last draft was dropped, once. */
export function takeNotice() {
  const text = notice;
  notice = null;
  return text;
}

/** A key stored for the draft: its hint, for the providers table. */
export function rememberHint(id, hint) {
  state.hints[id] = hint;
}

/** `new`, `changed` or null: how the draft's entry differs from the loaded version's. */
export function changeOf(section, id) {
  const find = (doc) =>
    section === 'groups' ? doc?.groups?.[id] : (doc?.[section] ?? []).find((e) => e?.id === id);
  const before = find(state.view.document);
  if (before === undefined) return 'new';
  return JSON.stringify(before) === JSON.stringify(find(state.draft)) ? null : 'changed';
}

/** The draft with one entry of a section put at `index` (appended past the end), as a copy. */
export function draftWith(section, index, entry) {
  const list = [...state.draft[section]];
  list[index] = entry;
  return { ...state.draft, [section]: list };
}

/** Checks a document with the one schema: `{ok, issues: [{path, message}], warnings}`. */
export function checkDocument(document) {
  return api.post('/api/admin/config/validate', { document });
}

/**
 * Sends `document` as the version after the loaded one. A change the server saves only when
 * acknowledged (a group left with nothing to serve) is asked about, then sent again with
 * `acknowledge_warnings`. Resolves `{version, warnings}`, or null when the admin declined.
 */
export async function saveDocument(document, comment) {
  const body = { base_version: state.view.version, document, ...(comment ? { comment } : {}) };
  try {
    return await api.put('/api/admin/config', body);
  } catch (err) {
    if (err.status !== 400) throw err;
    const check = await checkDocument(document);
    if (!check.ok || check.warnings.length === 0) throw err;
    const confirmed = await confirmDialog({
      title: 'Save anyway?',
      message: `${check.warnings.join('; ')}. Clients of such a group get no model until a provider serves one.`,
      confirmLabel: 'Save anyway',
    });
    if (!confirmed) return null;
    return api.put('/api/admin/config', { ...body, acknowledge_warnings: true });
  }
}
