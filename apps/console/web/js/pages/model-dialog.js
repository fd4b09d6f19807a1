// Add or edit a model of the draft: owner, display name, context window, prices (base, cache,
// audio, tiers by prompt size, fees) and its groups. On add, the prices are proposed from the
// maintained catalog for the provider serving it (with the catalog's date), and stay editable.
import { field, h } from '../dom.js';
import { checkDocumentEntry, editDialog, requireNoIssues } from './config-common.js';
import { groupModels, withModel } from './config-document.js';
import { editDraft } from './config-state.js';
import { catalogPanel, FEES, priceInput, priceList, tiersEditor } from './price-fields.js';

const OWNED = ['id', 'owned_by', 'created', 'display_name', 'context_window', 'strategy', 'pricing'];
const STRATEGIES = ['priority', 'latency', 'least_inflight'];

/** Opens the dialog for the model at `index` of the draft (`original` null: a new one at the end). */
export function openModelDialog({ original, index, st, onDone }) {
  const m = original ?? { pricing: {} };
  const id = h('input', {
    type: 'text',
    required: true,
    maxlength: '200',
    value: m.id ?? '',
    autocomplete: 'off',
  });
  const displayName = h('input', { type: 'text', maxlength: '100', value: m.display_name ?? '' });
  const owner = h('input', { type: 'text', required: true, maxlength: '200', value: m.owned_by ?? '' });
  const context = h('input', { type: 'number', min: '1', step: '1', value: m.context_window ?? '' });
  const strategy = h(
    'select',
    {},
    STRATEGIES.map((s) => h('option', { value: s, selected: (m.strategy ?? 'priority') === s }, s)),
  );
  const base = priceList('', m.pricing, true);
  const tiers = tiersEditor(m.pricing?.tiers);
  const fees = Object.fromEntries(
    FEES.map(([k, label]) => [k, priceInput(label, m.pricing?.fees_per_thousand?.[k], false)]),
  );
  const inGroups = Object.entries(st.draft.groups).map(([name, g]) =>
    h('input', {
      type: 'checkbox',
      value: name,
      checked: original ? groupModels(g).includes(original.id) : false,
    }),
  );
  let pricesTouched = original !== null;
  const apply = (proposal) => {
    base.fill(proposal.pricing);
    tiers.fill(proposal.pricing.tiers);
    for (const [k] of FEES) fees[k].value = proposal.pricing.fees_per_thousand?.[k] ?? '';
    if (proposal.contextWindow && !context.value) context.value = proposal.contextWindow;
    if (proposal.source.name && !displayName.value) displayName.value = proposal.source.name;
    if (!owner.value) owner.value = proposal.source.provider;
  };
  const catalog = catalogPanel(st, id, apply);
  for (const input of [...Object.values(base.inputs)])
    input.addEventListener('input', () => (pricesTouched = true));
  // On add, the catalog fills the prices as soon as the id is known, until the admin types one.
  id.addEventListener('change', () => {
    catalog.syncFrom();
    if (!pricesTouched) void catalog.propose();
  });

  const build = () => {
    const e = Object.fromEntries(Object.entries(original ?? {}).filter(([k]) => !OWNED.includes(k)));
    e.id = id.value.trim();
    if (displayName.value.trim()) e.display_name = displayName.value.trim();
    e.owned_by = owner.value.trim();
    e.created = original?.created ?? Math.floor(Date.now() / 1000);
    if (context.value) e.context_window = Number(context.value);
    if (strategy.value !== 'priority' || original?.strategy) e.strategy = strategy.value;
    const feeValues = Object.fromEntries(
      FEES.filter(([k]) => fees[k].value !== '').map(([k]) => [k, Number(fees[k].value)]),
    );
    const tierValues = tiers.value();
    e.pricing = {
      ...base.value(),
      ...(tierValues.length ? { tiers: tierValues } : {}),
      ...(Object.keys(feeValues).length ? { fees_per_thousand: feeValues } : {}),
    };
    return e;
  };

  editDialog({
    title: original ? `Edit model ${original.id}` : 'Add model',
    submitLabel: original ? 'Keep changes' : 'Add model',
    fields: [
      h(
        'div',
        { class: 'grid-2' },
        field('Model ID', id, 'As clients call it.'),
        field('Display name', displayName, 'Optional; the console shows it.'),
      ),
      h(
        'div',
        { class: 'grid-3' },
        field('Owner', owner, 'owned_by in the Models API.'),
        field('Context window', context, 'Tokens; optional.'),
        field('Routing strategy', strategy),
      ),
      catalog.el,
      h(
        'fieldset',
        {},
        h('legend', {}, 'Prices (credits per million tokens)'),
        h('div', { class: 'grid-3' }, base.cells),
        h('p', { class: 'hint' }, 'An empty cache or audio price is charged at the input price.'),
      ),
      tiers.el,
      h(
        'fieldset',
        {},
        h('legend', {}, 'Fees'),
        h(
          'div',
          { class: 'grid-2' },
          FEES.map(([k, label]) => field(label, fees[k])),
        ),
      ),
      inGroups.length
        ? h(
            'fieldset',
            {},
            h('legend', {}, 'Groups'),
            h(
              'div',
              { class: 'checks' },
              inGroups.map((box) => h('label', { class: 'check' }, box, box.value)),
            ),
          )
        : null,
    ],
    submit: async () => {
      const entry = build();
      const groups = inGroups.filter((b) => b.checked).map((b) => b.value);
      const next = withModel(st.draft, { index, original, entry, groups });
      requireNoIssues(await checkDocumentEntry({ ...st.draft, ...next }, `models[${index}]`));
      editDraft((d) => Object.assign(d, next));
      onDone();
    },
  }).classList.add('xwide');
}
