// Pieces the configuration pages share: the bar that saves the draft (or says the file is the
// truth), the form dialog, a list-of-pairs editor, and the issues of one entry.
import { api } from '../api.js';
import { badge, busy, confirmDialog, errorBox, h, openDialog, toast } from '../dom.js';
import { formatDateTime, formatMs } from '../format.js';
import { checkDocument, discardDraft, saveDocument, takeNotice } from './config-state.js';

const SOURCE_LABEL = {
  seed: 'file seed',
  console: 'console',
  api: 'API',
  import: 'import',
  restore: 'restore',
};

export function sourceBadge(source) {
  return badge(SOURCE_LABEL[source] ?? source, source === 'console' ? 'admin' : null);
}

function versionLine(view) {
  const parts = [`Version ${view.version}`];
  if (view.author) parts.push(`saved by ${view.author}`);
  if (view.createdAt) parts.push(formatDateTime(view.createdAt));
  return h(
    'p',
    { class: 'muted small', id: 'config-version' },
    parts.join(' · '),
    view.comment ? ` — “${view.comment}”` : null,
  );
}

/**
 * Above every configuration page: read-only when the file is the truth; else the version shown
 * and, once the draft changed, its save (the whole document, on the version it was made on).
 */
export function configBar(st, refresh) {
  const dropped = takeNotice();
  const droppedNotice = dropped ? h('p', { class: 'notice error', role: 'alert' }, dropped) : null;
  if (!st.view.editable && st.view.readOnlyRole)
    return h(
      'div',
      {},
      h(
        'p',
        { class: 'notice', id: 'config-read-only' },
        'You are an auditor: these pages show the configuration read-only.',
      ),
    );
  if (!st.view.editable)
    return h(
      'div',
      {},
      h(
        'p',
        { class: 'notice', id: 'config-read-only' },
        `The configuration is managed in its file (config.source: ${st.view.source}): the file is the truth, `,
        'and these pages show it read-only. Change the file to change providers, models or groups.',
      ),
    );
  if (!st.dirty) return h('div', { class: 'config-bar' }, droppedNotice, versionLine(st.view));
  const comment = h('input', {
    type: 'text',
    maxlength: '500',
    placeholder: 'What changed and why (optional)',
    'aria-label': 'Comment',
  });
  const error = errorBox();
  const save = h('button', { type: 'button', class: 'primary' }, 'Save changes');
  save.addEventListener('click', () =>
    busy(save, async () => {
      error.clear();
      try {
        const saved = await saveDocument(st.draft, comment.value.trim());
        if (saved === null) return;
        discardDraft();
        const warned = saved.warnings.length ? ` Saved with: ${saved.warnings.join('; ')}.` : '';
        toast(`Saved as version ${saved.version}: every app uses it within a second.${warned}`);
        refresh();
      } catch (err) {
        if (err.status !== 409) return error.show(err.message);
        discardDraft(
          `Someone else saved the configuration after version ${st.view.version}: your changes were not saved. ` +
            'This page now shows the newest version; make them again on it.',
        );
        refresh();
      }
    }),
  );
  const discard = h('button', { type: 'button' }, 'Discard');
  discard.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: 'Discard the unsaved changes?',
      message: `The pages go back to version ${st.view.version}, the newest saved.`,
      confirmLabel: 'Discard changes',
      danger: true,
    });
    if (!ok) return;
    discardDraft();
    refresh();
  });
  return h(
    'section',
    { class: 'panel config-bar dirty', id: 'config-bar', 'aria-label': 'Unsaved changes' },
    h(
      'div',
      { class: 'config-bar-row' },
      h('div', {}, h('strong', {}, 'Unsaved changes'), versionLine(st.view)),
      comment,
      discard,
      save,
    ),
    error,
  );
}

/** `new` / `changed` beside an entry of the draft not saved yet. */
export function changeBadge(change) {
  return change ? badge(change === 'new' ? 'new' : 'edited', 'warn') : null;
}

/** A dialog with a form; `submit()` may throw, its message shows in the dialog, next to the fields. */
let formSeq = 0;
export function editDialog({ title, fields, submitLabel, submit, extraActions = [], wide = true }) {
  const id = `config-form-${++formSeq}`;
  const error = errorBox();
  const button = h('button', { type: 'submit', class: 'primary', form: id }, submitLabel);
  const form = h(
    'form',
    {
      id,
      onsubmit: async (e) => {
        e.preventDefault();
        error.clear();
        await busy(button, async () => {
          try {
            await submit();
            dialog.close();
          } catch (err) {
            error.show(err.message);
          }
        });
      },
    },
    fields,
    error,
  );
  const dialog = openDialog({
    title,
    body: form,
    wide,
    actions: [
      ...extraActions,
      h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'),
      button,
    ],
  });
  form.querySelector('input:not([type=hidden]), select')?.focus();
  return dialog;
}

/**
 * Rows of two text inputs (a served model and its upstream id; an upstream id and its
 * deployment), added and removed in place. `value()` gives the non-empty rows as [a, b].
 */
export function pairsEditor({ legend, labels, placeholders = [], rows, list, hint }) {
  const body = h('div', { class: 'pairs' });
  const addRow = ([a, b] = ['', '']) => {
    const n = body.children.length + 1;
    const first = h('input', {
      type: 'text',
      value: a,
      list,
      placeholder: placeholders[0],
      'aria-label': `${labels[0]} ${n}`,
      autocomplete: 'off',
    });
    const second = h('input', {
      type: 'text',
      value: b,
      placeholder: placeholders[1],
      'aria-label': `${labels[1]} ${n}`,
      autocomplete: 'off',
    });
    const row = h('div', { class: 'pair' }, first, second);
    row.append(
      h(
        'button',
        { type: 'button', class: 'small', 'aria-label': `Remove row ${n}`, onclick: () => row.remove() },
        'Remove',
      ),
    );
    body.append(row);
    return first;
  };
  for (const r of rows) addRow(r);
  if (rows.length === 0) addRow();
  const add = h('button', { type: 'button', class: 'small', onclick: () => addRow().focus() }, 'Add row');
  return {
    el: h('fieldset', {}, h('legend', {}, legend), hint ? h('p', { class: 'hint' }, hint) : null, body, add),
    value: () =>
      [...body.querySelectorAll('.pair')]
        .map((row) => [...row.querySelectorAll('input')].map((i) => i.value.trim()))
        .filter(([a, b]) => a !== '' || b !== ''),
  };
}

/**
 * What the one schema says of one entry of a composed draft (`providers[2]`...), by field. A
 * reference to a model the draft does not have yet is left to the save: it may be added next.
 */
export function entryIssues(check, prefix) {
  return check.issues
    .filter((i) => i.path === prefix || i.path.startsWith(`${prefix}.`) || i.path.startsWith(`${prefix}[`))
    .filter((i) => !/^unknown model /.test(i.message))
    .map((i) => `${i.path.slice(prefix.length).replace(/^\./, '') || 'entry'}: ${i.message}`);
}

/** The issues of the entry at `prefix` in `document`, checked by the console with the one schema. */
export async function checkDocumentEntry(document, prefix) {
  return entryIssues(await checkDocument(document), prefix);
}

/** Throws the entry's issues as one error (the dialog shows it beside the form). */
export function requireNoIssues(issues) {
  if (issues.length) throw new Error(`Not valid: ${issues.join('; ')}.`);
}

/** A test's answer as a line: what the router would make of it, status, latency, the vendor's words. */
export function testResultLine(result) {
  const timing = [
    result.status === null ? null : `HTTP ${result.status}`,
    result.latencyMs === null ? null : formatMs(result.latencyMs),
  ]
    .filter(Boolean)
    .join(' in ');
  const verdict = result.ok
    ? result.status >= 200 && result.status < 300
      ? 'Works'
      : 'Reachable'
    : 'Failed';
  return h(
    'span',
    { class: `test-result ${result.ok ? 'ok' : 'error'}` },
    badge(verdict, result.ok ? 'ok' : 'error'),
    timing ? ` ${timing}` : null,
    result.error ? h('span', { class: 'test-error' }, ` — ${result.error}`) : null,
  );
}

/** Runs the provider test; the answer (or the refusal naming a field) as a line. */
export async function testProvider(provider, key) {
  try {
    const result = await api.post('/api/admin/config/providers/test', {
      provider,
      ...(key ? { key } : {}),
    });
    return testResultLine(result);
  } catch (err) {
    return h('span', { class: 'test-result error' }, badge('Not tested', 'error'), ` ${err.message}`);
  }
}

/** Providers as the console runs them (why one cannot be used) and the router's route table. */
export async function liveProviders() {
  const { providers, routes, routerError } = await api.get('/api/admin/providers');
  return { byId: new Map(providers.map((p) => [p.id, p])), routes, routerError };
}

export function availabilityBadge({ available, reason }) {
  return available
    ? badge('available', 'ok')
    : h('span', {}, badge('unavailable', 'error'), h('div', { class: 'muted small' }, reason));
}
