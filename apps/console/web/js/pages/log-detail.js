import { api } from '../api.js';
import { badge, emptyRow, h } from '../dom.js';
import { formatCredits, formatMs, formatNumber, formatPreciseTime } from '../format.js';
import { pageHeader } from './common.js';
import { statusBadge } from './log-view.js';

function item(label, ...value) {
  return [h('dt', {}, label), h('dd', {}, value)];
}

const COMPONENTS = [
  ['uncachedInput', 'Input (uncached)'],
  ['audioInput', 'Audio input (uncached)'],
  ['cacheRead', 'Cache reads'],
  ['cacheReadAudio', 'Audio cache reads'],
  ['cacheWrite5m', 'Cache writes (5 min)'],
  ['cacheWrite1h', 'Cache writes (1 h)'],
  ['output', 'Output'],
  ['audioOutput', 'Audio output'],
];

/** The audio components: each shown only when there was some or the model prices it apart. */
const AUDIO = new Set(['audioInput', 'cacheReadAudio', 'audioOutput']);

const FEES = {
  web_search_requests: 'Web searches',
  requests: 'Request fee',
  input_characters: 'Billed characters',
};

/** Rows of older logs lack the later components; audio shows only when there was some or a price. */
function shownComponents(usage) {
  return COMPONENTS.filter(([k]) => usage[k] && (!AUDIO.has(k) || usage[k].tokens > 0 || !usage[k].fallback));
}

/** A fee row: the count, the price per thousand, the cost (columns as the token rows). */
function feeRow(fee) {
  return h(
    'tr',
    { dataset: { fee: fee.counter } },
    h('th', { scope: 'row' }, `${FEES[fee.counter] ?? fee.counter} (per 1,000)`),
    h('td', { class: 'num' }, formatNumber(fee.count)),
    h('td', { class: 'num' }, String(fee.pricePerThousand)),
    h('td', { class: 'num' }, formatCredits(fee.costCredits)),
  );
}

/** Each usage component at the price it was charged (prices kept on the log row). */
function costPanel(usage) {
  if (!usage) return null;
  const components = shownComponents(usage);
  const fellBack = components.some(([k]) => usage[k].fallback && !AUDIO.has(k));
  const audioFellBack = components.some(([k]) => usage[k].fallback && AUDIO.has(k));
  return h(
    'section',
    { class: 'panel flush', 'aria-labelledby': 'cost-title' },
    h('h2', { id: 'cost-title', class: 'panel-title' }, 'Cost by component'),
    h(
      'table',
      { class: 'data', id: 'cost-components' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Component', 'Tokens / count', 'Credits / M tokens', 'Cost (credits)'].map((c, i) =>
            h('th', { scope: 'col', class: i ? 'num' : null }, c),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        components.map(([k, label]) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, usage[k].fallback ? `${label} *` : label),
            h('td', { class: 'num' }, formatNumber(usage[k].tokens)),
            h('td', { class: 'num' }, String(usage[k].pricePerMillion)),
            h('td', { class: 'num' }, formatCredits(usage[k].costCredits)),
          ),
        ),
        (usage.fees ?? []).map(feeRow),
      ),
    ),
    h(
      'p',
      { class: 'muted panel-note' },
      `Reasoning: ${formatNumber(usage.reasoningTokens)} of the output tokens. `,
      usage.priceTier === null
        ? ''
        : `Priced at the tier above ${formatNumber(usage.priceTier)} prompt tokens. `,
      fellBack ? '* The model sets no price for it: charged at the input price (fallback rule).' : '',
      audioFellBack
        ? ' * Audio the model sets no price for is charged as its text counterpart: input, cache read or output.'
        : '',
    ),
  );
}

/**
 * What translation carried or dropped on the way to the provider (empty when passed through), and
 * what the worker had to change to store the log (a field it could not take as sent).
 */
function adjustmentsPanel(adjustments, repairs) {
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'adjustments-title' },
    // A padded panel: its heading needs no padding of its own (panel-title is for flush panels).
    h('h2', { id: 'adjustments-title' }, 'Translation adjustments'),
    adjustments.length
      ? h(
          'ul',
          { id: 'adjustments-list' },
          adjustments.map((a) => h('li', {}, h('code', {}, a))),
        )
      : h('p', { class: 'muted', id: 'adjustments-list' }, 'None: the request reached the provider as sent.'),
    repairs.length
      ? h(
          'div',
          { id: 'log-repairs' },
          h('p', {}, 'Stored with repairs: these fields were not as the edge recorded them.'),
          h(
            'ul',
            {},
            repairs.map((r) => h('li', {}, h('code', {}, r))),
          ),
        )
      : null,
  );
}

export async function logDetailPage({ params, admin = false }) {
  const id = encodeURIComponent(params.id);
  const [{ log }, keys] = await Promise.all([
    api.get(admin ? `/api/admin/logs/${id}` : `/api/logs/${id}`),
    // Your own keys name the key; an admin sees other users' key ids.
    admin ? Promise.resolve({ keys: [] }) : api.get('/api/keys'),
  ]);
  const key = keys.keys.find((k) => k.id === log.keyId);
  const back = h('a', { class: 'button', href: admin ? '/admin?tab=logs' : '/logs' }, '← All requests');
  const attempts = log.attempts ?? [];
  // Attempts name their model only when the request fell back (they span several models).
  const byModel = attempts.some((a) => a.model);
  const columns = ['#', ...(byModel ? ['Model'] : []), 'Provider', 'Outcome', 'Status', 'Latency', 'Reason'];
  return [
    pageHeader('Request', null, back),
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'summary-title' },
      h('h2', { id: 'summary-title', class: 'visually-hidden' }, 'Summary'),
      h(
        'dl',
        { class: 'details', id: 'log-detail' },
        item('Request ID', h('code', {}, log.requestId)),
        item('Time', formatPreciseTime(log.startedAt)),
        item('Endpoint', h('code', {}, log.endpoint), log.stream ? badge('stream', 'muted') : null),
        item('Status', statusBadge(log.status, log.errorCode)),
        item('Error', log.errorCode ?? '—'),
        item(
          'Model',
          log.model ?? '—',
          // Another model of its fallback chain answered: the one it was for could not.
          log.fallbackFrom ? badge(`fallback from ${log.fallbackFrom}`, 'muted') : null,
        ),
        item('Requested as', log.requestedModel ?? '—'),
        item('Upstream model', log.upstreamModel ?? '—'),
        item('Provider', log.providerId ?? '—'),
        item('Group', log.groupName ?? '—'),
        item(
          'Key',
          key
            ? [key.name, ' ', h('code', {}, key.displayPrefix)]
            : log.keyId
              ? h('code', {}, log.keyId)
              : '—',
        ),
        admin && log.userId ? item('User', h('code', {}, log.userId)) : null,
        item('Latency', formatMs(log.latencyMs)),
        item('Time to first token', formatMs(log.ttftMs)),
        item('Input tokens', formatNumber(log.inputTokens)),
        item('Cached input tokens', formatNumber(log.cachedTokens)),
        item('Output tokens', formatNumber(log.outputTokens)),
        item(
          'Cost',
          `${formatCredits(log.costCredits)} credits`,
          // The provider gave no final count (a cut stream, or a vendor that omits usage).
          log.usageEstimated ? badge('estimated tokens', 'muted') : null,
        ),
      ),
    ),
    h(
      'section',
      { class: 'panel flush', 'aria-labelledby': 'attempts-title' },
      h('h2', { id: 'attempts-title', class: 'panel-title' }, 'Attempts'),
      h(
        'table',
        { class: 'data', id: 'attempts-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            columns.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          attempts.length
            ? attempts.map((a, i) =>
                h(
                  'tr',
                  {},
                  h('td', {}, String(i + 1)),
                  byModel ? h('td', {}, a.model ?? '—') : null,
                  h('td', {}, a.providerId),
                  h('td', {}, a.outcome),
                  h('td', {}, a.status ? statusBadge(a.status) : '—'),
                  h('td', {}, formatMs(a.latencyMs)),
                  // Why it failed in the provider's words (a refused credential), when it said.
                  h('td', {}, a.reason ?? '—'),
                ),
              )
            : emptyRow(columns.length, 'No provider was tried (refused before routing).'),
        ),
      ),
    ),
    costPanel(log.usage),
    adjustmentsPanel(log.adjustments ?? [], log.repairs ?? []),
    h('p', { class: 'muted' }, 'Prompts and completions are not stored; only this metadata is.'),
  ];
}
