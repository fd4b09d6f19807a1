// Admin > Groups: which models each group has (a key of the group may call those), its per-user
// limits and its translation policy; add, edit, remove. Models that cannot be served are marked.
import { badge, confirmDialog, emptyRow, field, h } from '../dom.js';
import { formatNumber } from '../format.js';
import {
  changeBadge,
  checkDocumentEntry,
  configBar,
  editDialog,
  liveProviders,
  requireNoIssues,
} from './config-common.js';
import { changeOf, editDraft, loadConfig } from './config-state.js';
import { availabilityOf, groupModels } from './config-document.js';

/** The group's settings besides its models, whichever shape it has. */
function settingsOf(group) {
  if (Array.isArray(group)) return { limits: {}, translation: 'lenient' };
  return { limits: group?.limits ?? {}, translation: group?.translation ?? 'lenient' };
}

/** The entry for these settings: a plain list while it has no limits and translates leniently. */
function groupEntry(original, models, limits, translation) {
  const rest = Array.isArray(original) || original === undefined ? {} : original;
  const { limits: _l, translation: _t, models: _m, ...other } = rest;
  const plain =
    Object.keys(limits).length === 0 && translation === 'lenient' && Object.keys(other).length === 0;
  if (plain && (Array.isArray(original) || original === undefined)) return models;
  return {
    ...other,
    models,
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(translation !== 'lenient' || rest.translation ? { translation } : {}),
  };
}

function openGroupDialog({ name, st, live, onDone }) {
  const original = name === null ? undefined : st.draft.groups[name];
  const current = new Set(groupModels(original));
  const settings = settingsOf(original);
  const nameInput = h('input', {
    type: 'text',
    required: true,
    pattern: '[a-z0-9][a-z0-9_\\-]*',
    maxlength: '100',
    value: name ?? '',
    autocomplete: 'off',
  });
  const boxes = st.draft.models.map((m) => {
    const box = h('input', { type: 'checkbox', value: m.id, checked: current.has(m.id) });
    const { available, reason } = availabilityOf(m.id, st.draft, live);
    return h(
      'label',
      { class: 'check', title: reason ?? '' },
      box,
      m.id,
      available ? null : badge('unavailable', 'error'),
    );
  });
  const rpm = h('input', { type: 'number', min: '1', step: '1', value: settings.limits.rpm ?? '' });
  const tpm = h('input', { type: 'number', min: '1', step: '1', value: settings.limits.tpm ?? '' });
  const translation = h(
    'select',
    {},
    [
      ['lenient', 'Lenient: drop what a translation cannot carry, recorded as a hint'],
      ['strict', 'Strict: refuse (400) what a translation would drop'],
    ].map(([v, l]) => h('option', { value: v, selected: settings.translation === v }, l)),
  );
  editDialog({
    title: name === null ? 'Add group' : `Edit group ${name}`,
    submitLabel: name === null ? 'Add group' : 'Keep changes',
    fields: [
      field('Name', nameInput, 'Lowercase letters, digits, - and _; keys and users name it.'),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Models'),
        boxes.length ? h('div', { class: 'checks' }, boxes) : h('p', { class: 'hint' }, 'No models yet.'),
      ),
      h(
        'div',
        { class: 'grid-2' },
        field('Requests per minute (each user)', rpm, 'Empty: no limit.'),
        field('Tokens per minute (each user)', tpm, 'Empty: no limit.'),
      ),
      field('Translation', translation),
    ],
    submit: async () => {
      const next = nameInput.value.trim();
      const models = boxes
        .map((l) => l.querySelector('input'))
        .filter((b) => b.checked)
        .map((b) => b.value);
      const limits = {
        ...(rpm.value && { rpm: Number(rpm.value) }),
        ...(tpm.value && { tpm: Number(tpm.value) }),
      };
      if (next !== name && Object.hasOwn(st.draft.groups, next))
        throw new Error(`A group ${next} exists already.`);
      const groups = Object.fromEntries(
        Object.entries(st.draft.groups).map(([n, g]) => (n === name ? [next, null] : [n, g])),
      );
      groups[next] = groupEntry(original, models, limits, translation.value);
      requireNoIssues(await checkDocumentEntry({ ...st.draft, groups }, `groups.${next}`));
      editDraft((d) => {
        d.groups = groups;
      });
      onDone();
    },
  });
}

function groupRow(name, group, st, live, refresh) {
  const { limits, translation } = settingsOf(group);
  const actions = [];
  if (st.view.editable) {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          class: 'small',
          'aria-label': `Edit group ${name}`,
          onclick: () => openGroupDialog({ name, st, live, onDone: refresh }),
        },
        'Edit',
      ),
    );
    const remove = h(
      'button',
      { type: 'button', class: 'small danger-outline', 'aria-label': `Remove group ${name}` },
      'Remove',
    );
    remove.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Remove group ${name}?`,
        message:
          'Keys of this group are refused (403) once saved; users keep it in their list until an admin edits them.',
        confirmLabel: 'Remove group',
        danger: true,
      });
      if (!ok) return;
      editDraft((d) => delete d.groups[name]);
      refresh();
    });
    actions.push(remove);
  }
  return h(
    'tr',
    { dataset: { group: name } },
    h('th', { scope: 'row' }, name, changeBadge(changeOf('groups', name))),
    h(
      'td',
      {},
      h(
        'ul',
        { class: 'chips' },
        groupModels(group).map((id) => {
          const { available, reason } = availabilityOf(id, st.draft, live);
          return h(
            'li',
            { title: reason ?? '', class: available ? null : 'unavailable' },
            h('code', {}, id),
            available ? null : badge('unavailable', 'error'),
          );
        }),
      ),
    ),
    h(
      'td',
      {},
      [
        limits.rpm ? `${formatNumber(limits.rpm)} rpm` : null,
        limits.tpm ? `${formatNumber(limits.tpm)} tpm` : null,
      ]
        .filter(Boolean)
        .join(' · ') || h('span', { class: 'muted' }, 'none'),
    ),
    h('td', {}, translation),
    h('td', { class: 'actions' }, actions),
  );
}

export async function groupsTab({ refresh }) {
  const [st, live] = await Promise.all([loadConfig(), liveProviders()]);
  const rows = Object.entries(st.draft.groups).map(([name, g]) => groupRow(name, g, st, live, refresh));
  return h(
    'div',
    {},
    configBar(st, refresh),
    st.view.editable
      ? h(
          'div',
          { class: 'toolbar' },
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: () => openGroupDialog({ name: null, st, live, onDone: refresh }),
            },
            'Add group',
          ),
        )
      : null,
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'groups-table' },
        h('caption', { class: 'visually-hidden' }, 'Groups and their models'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Group', 'Models', 'Limits (each user)', 'Translation'].map((c) => h('th', { scope: 'col' }, c)),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(5, 'No groups yet.')),
      ),
    ),
  );
}
