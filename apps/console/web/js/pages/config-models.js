// Admin > Models: the draft's models with their prices, owner, providers, groups and whether they
// can be served right now (an enabled provider with its key serves them), and add, edit, remove.
import { confirmDialog, emptyRow, h } from '../dom.js';
import { formatNumber } from '../format.js';
import { availabilityBadge, changeBadge, configBar, liveProviders } from './config-common.js';
import { availabilityOf, groupModels, servedIds, withoutModel } from './config-document.js';
import { changeOf, editDraft, loadConfig } from './config-state.js';
import { openModelDialog } from './model-dialog.js';

const EXTRA_PRICES = [
  ['cache_read_per_million', 'cache read'],
  ['cache_write_5m_per_million', 'write 5 min'],
  ['cache_write_1h_per_million', 'write 1 h'],
  ['input_audio_per_million', 'audio in'],
  ['cache_read_audio_per_million', 'audio cache read'],
  ['output_audio_per_million', 'audio out'],
];

function pricesOf(pricing = {}) {
  const extra = EXTRA_PRICES.filter(([k]) => pricing[k] !== undefined).map(
    ([k, label]) => `${label} ${pricing[k]}`,
  );
  const fees = Object.entries(pricing.fees_per_thousand ?? {}).map(
    ([k, v]) => `${k.replace(/_/g, ' ')} ${v}/1k`,
  );
  const tiers = pricing.tiers?.length
    ? `${pricing.tiers.length} tier${pricing.tiers.length === 1 ? '' : 's'} (above ${pricing.tiers.map((t) => formatNumber(t.above_input_tokens)).join(', ')})`
    : null;
  return [
    h('div', {}, `in ${pricing.input_per_million ?? '?'} · out ${pricing.output_per_million ?? '?'}`),
    extra.length ? h('div', { class: 'muted small' }, extra.join(' · ')) : null,
    tiers ? h('div', { class: 'muted small' }, tiers) : null,
    fees.length ? h('div', { class: 'muted small' }, fees.join(' · ')) : null,
  ];
}

function modelRow(m, index, st, live, refresh) {
  const providers = st.draft.providers.filter((p) => servedIds(p).includes(m.id)).map((p) => p.id);
  const groups = Object.entries(st.draft.groups)
    .filter(([, g]) => groupModels(g).includes(m.id))
    .map(([name]) => name);
  const actions = [];
  if (st.view.editable) {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          class: 'small',
          'aria-label': `Edit model ${m.id}`,
          onclick: () => openModelDialog({ original: m, index, st, onDone: refresh }),
        },
        'Edit',
      ),
    );
    const remove = h(
      'button',
      { type: 'button', class: 'small danger-outline', 'aria-label': `Remove model ${m.id}` },
      'Remove',
    );
    remove.addEventListener('click', async () => {
      const from = [...providers.map((p) => `provider ${p}`), ...groups.map((g) => `group ${g}`)];
      const ok = await confirmDialog({
        title: `Remove model ${m.id}?`,
        message: from.length
          ? `It is also taken out of ${from.join(', ')}. Clients calling it get 404 once saved.`
          : 'Clients calling it get 404 once saved.',
        confirmLabel: 'Remove model',
        danger: true,
      });
      if (!ok) return;
      editDraft((d) => Object.assign(d, withoutModel(d, m.id)));
      refresh();
    });
    actions.push(remove);
  }
  return h(
    'tr',
    { dataset: { modelId: m.id } },
    h(
      'th',
      { scope: 'row' },
      m.id,
      changeBadge(changeOf('models', m.id)),
      m.display_name ? h('div', { class: 'muted small' }, m.display_name) : null,
    ),
    h('td', {}, m.owned_by ?? ''),
    h('td', {}, pricesOf(m.pricing)),
    h('td', { class: 'num' }, m.context_window ? formatNumber(m.context_window) : '—'),
    h('td', {}, providers.join(', ') || h('span', { class: 'muted' }, 'none')),
    h('td', {}, groups.join(', ') || h('span', { class: 'muted' }, 'none')),
    h('td', { class: 'availability' }, availabilityBadge(availabilityOf(m.id, st.draft, live))),
    h('td', { class: 'actions' }, actions),
  );
}

export async function modelsTab({ refresh }) {
  const [st, live] = await Promise.all([loadConfig(), liveProviders()]);
  const rows = st.draft.models.map((m, i) => modelRow(m, i, st, live, refresh));
  return h(
    'div',
    {},
    configBar(st, refresh),
    h(
      'p',
      { class: 'muted' },
      'Prices in credits per million tokens (fees per thousand). A model is available while an enabled provider with its key serves it; clients list only those.',
    ),
    st.view.editable
      ? h(
          'div',
          { class: 'toolbar' },
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: () =>
                openModelDialog({ original: null, index: st.draft.models.length, st, onDone: refresh }),
            },
            'Add model',
          ),
        )
      : null,
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'models-table' },
        h('caption', { class: 'visually-hidden' }, 'Models, their prices and availability'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Model', 'Owner', 'Prices', 'Context', 'Providers', 'Groups', 'Availability'].map((c) =>
              h('th', { scope: 'col', class: c === 'Context' ? 'num' : null }, c),
            ),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(8, 'No models yet.')),
      ),
    ),
  );
}
