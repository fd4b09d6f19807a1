// The price fields of the model form: one price list, the tiers by prompt size, and the catalog's
// proposal for the model as a provider of the draft serves it.
import { api } from '../api.js';
import { busy, field, h, replace } from '../dom.js';
import { servedIds } from './config-document.js';
import { loadProviderTypes, settingsOf, typeOf } from './provider-types.js';

/** The price list fields, in the order the form shows them (credits per million tokens). */
export const PRICES = [
  ['input_per_million', 'Input'],
  ['output_per_million', 'Output'],
  ['cache_read_per_million', 'Cache read'],
  ['cache_write_5m_per_million', 'Cache write (5 min)'],
  ['cache_write_1h_per_million', 'Cache write (1 h)'],
  ['input_audio_per_million', 'Audio input'],
  ['cache_read_audio_per_million', 'Audio cache read'],
  ['output_audio_per_million', 'Audio output'],
];
export const FEES = [
  ['web_search_requests', 'Web searches (per 1,000)'],
  ['requests', 'Requests (per 1,000)'],
  ['input_characters', 'Billed characters (per 1,000)'],
];
const REQUIRED = new Set(['input_per_million', 'output_per_million']);
export const priceInput = (label, value, required) =>
  h('input', {
    type: 'number',
    min: '0',
    step: 'any',
    inputmode: 'decimal',
    value: value ?? '',
    required,
    'aria-label': label,
  });

/** Inputs for one price list; `value()` gives the set prices only (an unset cache price is the input price). */
export function priceList(prefix, prices, withLabels) {
  const inputs = Object.fromEntries(
    PRICES.map(([k, label]) => [k, priceInput(`${prefix}${label}`, prices?.[k], REQUIRED.has(k))]),
  );
  const cells = PRICES.map(([k, label]) =>
    withLabels ? field(label, inputs[k]) : h('div', { class: 'cell' }, inputs[k]),
  );
  return {
    cells,
    inputs,
    value: () =>
      Object.fromEntries(
        PRICES.filter(([k]) => inputs[k].value !== '').map(([k]) => [k, Number(inputs[k].value)]),
      ),
    fill(prices) {
      for (const [k] of PRICES) inputs[k].value = prices?.[k] ?? '';
    },
  };
}

/** Tier rows: every token of a request whose prompt is above a size, at that tier's prices. */
export function tiersEditor(tiers) {
  const body = h('div', { class: 'tiers' });
  const rows = [];
  const add = (tier) => {
    const n = rows.length + 1;
    const above = h('input', {
      type: 'number',
      min: '1',
      step: '1',
      required: true,
      value: tier?.above_input_tokens ?? '',
      'aria-label': `Tier ${n}: above input tokens`,
    });
    const list = priceList(`Tier ${n}: `, tier, false);
    const row = h('div', { class: 'tier-row' }, h('div', { class: 'cell' }, above), list.cells);
    const entry = { above, list, row };
    row.append(
      h(
        'button',
        {
          type: 'button',
          class: 'small',
          'aria-label': `Remove tier ${n}`,
          onclick: () => {
            rows.splice(rows.indexOf(entry), 1);
            row.remove();
          },
        },
        'Remove',
      ),
    );
    rows.push(entry);
    body.append(row);
  };
  for (const t of tiers ?? []) add(t);
  const head = h(
    'div',
    { class: 'tier-row tier-head', 'aria-hidden': 'true' },
    ['Above tokens', ...PRICES.map(([, l]) => l)].map((l) => h('span', {}, l)),
  );
  return {
    el: h(
      'fieldset',
      {},
      h('legend', {}, 'Tiers by prompt size'),
      h(
        'p',
        { class: 'hint' },
        'A request whose prompt (cache included) is above the size pays the tier’s prices for all its tokens.',
      ),
      head,
      body,
      h('button', { type: 'button', class: 'small', onclick: () => add() }, 'Add tier'),
    ),
    value: () => rows.map((r) => ({ above_input_tokens: Number(r.above.value), ...r.list.value() })),
    fill(next) {
      rows.splice(0).forEach((r) => r.row.remove());
      for (const t of next ?? []) add(t);
    },
  };
}

/**
 * The provider's own settings written as text, for the catalog's lookup (a profile, a location
 * where a cloud bills more): the console's lookup reads those of its type it needs.
 */
async function settingsQuery(p) {
  const view = typeOf(await loadProviderTypes(), p.type);
  return Object.fromEntries(
    settingsOf(view)
      .filter(([name]) => typeof p[name] === 'string')
      .map(([name]) => [name, p[name]]),
  );
}

/**
 * The catalog's proposal for the model as one provider of the draft serves it: which provider,
 * which vendor id, the button, and the note saying where the prices come from and how fresh.
 */
export function catalogPanel(st, idInput, apply) {
  const providers = st.draft.providers;
  const provider = h(
    'select',
    { 'aria-label': 'Provider to price it for' },
    providers.map((p) => h('option', { value: p.id }, `${p.id} (${p.type})`)),
  );
  const upstream = h('input', { type: 'text', 'aria-label': 'Vendor model ID', autocomplete: 'off' });
  const note = h('p', { class: 'hint catalog-note', role: 'status', id: 'catalog-note' });
  const entryOf = () => providers.find((p) => p.id === provider.value);
  const servedEntry = (p, id) => (p?.models ?? []).find((m) => (typeof m === 'string' ? m : m?.id) === id);
  const syncFrom = () => {
    const id = idInput.value.trim();
    const serving = providers.find((p) => servedIds(p).includes(id));
    if (serving) provider.value = serving.id;
    const served = servedEntry(entryOf(), id);
    upstream.value = (typeof served === 'object' && served?.upstream) || id;
  };
  const propose = async () => {
    const p = entryOf();
    if (!p || !upstream.value.trim()) return;
    const query = { type: p.type, model: upstream.value.trim() };
    if (p.base_url) query.base_url = p.base_url;
    try {
      Object.assign(query, await settingsQuery(p));
      const { proposal } = await api.get('/api/admin/config/catalog-prices', query);
      apply(proposal);
      const { catalog, source, unexpressed, premium } = proposal;
      replace(
        note,
        `Proposed from the catalog ${catalog.package} ${catalog.version} (prices as of ${catalog.date}) for ${source.provider} ${source.model}. Any price may be changed.`,
        premium ? ` Token prices +${premium.percent} %: ${premium.reason} (${premium.url}).` : '',
        unexpressed.length ? ` Not charged by the gateway: ${unexpressed.join(', ')}.` : '',
      );
    } catch (err) {
      replace(
        note,
        err.status === 404
          ? `The catalog has no prices for ${query.model} (${p.type}): enter them below.`
          : err.message,
      );
    }
  };
  const button = h('button', { type: 'button', class: 'small' }, 'Propose from the catalog');
  button.addEventListener('click', () => busy(button, propose));
  provider.addEventListener('change', () => {
    const served = servedEntry(entryOf(), idInput.value.trim());
    upstream.value = (typeof served === 'object' && served?.upstream) || idInput.value.trim();
  });
  syncFrom();
  return {
    el: providers.length
      ? h(
          'fieldset',
          { class: 'catalog' },
          h('legend', {}, 'Prices from the catalog'),
          h('div', { class: 'catalog-row' }, provider, upstream, button),
          note,
        )
      : h('p', { class: 'hint' }, 'Add a provider first to have its prices proposed from the catalog.'),
    syncFrom,
    propose,
  };
}
