import { api } from '../api.js';
import { emptyRow, h, replace } from '../dom.js';
import { daysBetween, formatCredits, formatDay, formatNumber, utcDayStart } from '../format.js';
import { navigate } from '../router.js';
import { stackedBarChart } from '../chart.js';
import { pageHeader } from './common.js';

const RANGES = [7, 30, 90];
const METRICS = [
  { id: 'cost', label: 'Spend', unit: 'credits', value: (r) => r.costCredits, format: formatCredits },
  {
    id: 'requests',
    label: 'Requests',
    unit: 'requests',
    value: (r) => r.requests,
    format: formatNumber,
    integer: true,
  },
  {
    id: 'tokens',
    label: 'Tokens',
    unit: 'tokens',
    value: (r) => (r.inputTokens ?? 0) + (r.outputTokens ?? 0),
    format: formatNumber,
    integer: true,
  },
];

function stat(label, value, id) {
  return h(
    'div',
    { class: 'stat', id },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, value),
  );
}

/** Per-model series over every day of the range (days with no row count as zero). */
function seriesOf(rows, days, metric) {
  const models = [...new Set(rows.map((r) => r.model ?? '(none)'))].sort();
  return models.map((model) => ({
    name: model,
    values: days.map((day) =>
      rows
        .filter((r) => r.day === day && (r.model ?? '(none)') === model)
        .reduce((n, r) => n + metric.value(r), 0),
    ),
  }));
}

function byModel(rows) {
  const map = new Map();
  for (const r of rows) {
    const m = map.get(r.model ?? '(none)') ?? {
      model: r.model ?? '(none)',
      requests: 0,
      inputTokens: 0,
      outputTokens: 0,
      costCredits: 0,
      cachedTokens: 0,
      cacheSavingsCredits: 0,
    };
    m.requests += r.requests;
    m.inputTokens += r.inputTokens ?? 0;
    m.outputTokens += r.outputTokens ?? 0;
    m.costCredits += r.costCredits;
    m.cachedTokens += r.cachedTokens ?? 0;
    m.cacheSavingsCredits += r.cacheSavingsCredits ?? 0;
    map.set(m.model, m);
  }
  return [...map.values()].sort((a, b) => b.costCredits - a.costCredits);
}

/** Share of prompt tokens read from the provider's cache. */
function hitRate(r) {
  return r.inputTokens ? `${(((r.cachedTokens ?? 0) / r.inputTokens) * 100).toFixed(1)} %` : '—';
}

function usageTable(caption, first, rows) {
  const cols = [first, 'Requests', 'Tokens in', 'Tokens out', 'Cache hits', 'Cache saved', 'Spend (credits)'];
  return h(
    'table',
    { class: 'data' },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        cols.map((c, i) => h('th', { scope: 'col', class: i ? 'num' : null }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length
        ? rows.map((r) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, r.label),
              h('td', { class: 'num' }, formatNumber(r.requests)),
              h('td', { class: 'num' }, formatNumber(r.inputTokens)),
              h('td', { class: 'num' }, formatNumber(r.outputTokens)),
              h('td', { class: 'num' }, hitRate(r)),
              // Against uncached prices, at each request's own prices; negative when writes cost more.
              h('td', { class: 'num' }, formatCredits(r.cacheSavingsCredits ?? 0)),
              h('td', { class: 'num' }, formatCredits(r.costCredits)),
            ),
          )
        : emptyRow(cols.length, 'No requests in this period.'),
    ),
  );
}

export async function usagePage({ query }) {
  const range = RANGES.includes(Number(query.get('range'))) ? Number(query.get('range')) : 30;
  const from = utcDayStart(range - 1);
  const to = utcDayStart(-1);
  const usage = await api.get('/api/usage', { from: from.toISOString(), to: to.toISOString() });
  const rows = usage.days ?? [];
  const days = daysBetween(from, to);
  const totals = usage.totals ?? {
    requests: rows.reduce((n, r) => n + r.requests, 0),
    inputTokens: rows.reduce((n, r) => n + (r.inputTokens ?? 0), 0),
    outputTokens: rows.reduce((n, r) => n + (r.outputTokens ?? 0), 0),
  };

  const rangeSelect = h(
    'select',
    { 'aria-label': 'Period', onchange: (e) => navigate(`/usage?range=${e.target.value}`) },
    RANGES.map((n) => h('option', { value: n, selected: n === range }, `Last ${n} days`)),
  );

  const chartHolder = h('div', { class: 'chart-holder' });
  const metricButtons = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Chart metric' });
  const draw = (metric) => {
    for (const b of metricButtons.children)
      b.setAttribute('aria-pressed', String(b.dataset.metric === metric.id));
    replace(
      chartHolder,
      stackedBarChart({
        days,
        series: seriesOf(rows, days, metric),
        format: metric.format,
        integer: metric.integer,
        unit: metric.unit,
        title: `${metric.label} per day and model, last ${range} days`,
      }),
    );
  };
  for (const m of METRICS)
    metricButtons.append(
      h('button', { type: 'button', dataset: { metric: m.id }, onclick: () => draw(m) }, m.label),
    );
  draw(METRICS[0]);

  const perDay = [...rows]
    .sort((a, b) =>
      a.day === b.day ? String(a.model).localeCompare(String(b.model)) : a.day < b.day ? 1 : -1,
    )
    .map((r) => ({ ...r, label: `${formatDay(r.day)} · ${r.model ?? '(none)'}` }));

  return [
    pageHeader('Usage', 'Spend and tokens of your keys. Days are UTC.', rangeSelect),
    h(
      'div',
      { class: 'stats' },
      stat('Balance', `${formatCredits(usage.balanceCredits)} credits`, 'stat-balance'),
      stat(`Spent, last ${range} days`, `${formatCredits(usage.spentCredits)} credits`, 'stat-spent'),
      stat('Requests', formatNumber(totals.requests), 'stat-requests'),
      stat(
        'Tokens in / out',
        `${formatNumber(totals.inputTokens)} / ${formatNumber(totals.outputTokens)}`,
        'stat-tokens',
      ),
    ),
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'chart-title' },
      h('div', { class: 'panel-header' }, h('h2', { id: 'chart-title' }, 'Per day and model'), metricButtons),
      chartHolder,
    ),
    h(
      'section',
      { class: 'panel flush' },
      usageTable(
        'By model',
        'Model',
        byModel(rows).map((r) => ({ ...r, label: r.model })),
      ),
    ),
    h('section', { class: 'panel flush' }, usageTable('By day', 'Day · model', perDay)),
  ];
}
