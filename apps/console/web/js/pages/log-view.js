// The request log table with its filters and cursor pagination. Used by Logs (your requests) and
// by Admin (everyone's, with a user filter). Filters live in the address, so a view can be shared.
import { api } from '../api.js';
import { badge, emptyRow, field, h } from '../dom.js';
import {
  formatCredits,
  formatMs,
  formatNumber,
  formatPreciseTime,
  formatShortTime,
  fromLocalInput,
  toLocalInput,
} from '../format.js';
import { navigate } from '../router.js';
import { userPicker } from './paging.js';

const RANGES = [
  ['1h', 'Last hour', 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000],
  ['7d', 'Last 7 days', 7 * 86_400_000],
  ['30d', 'Last 30 days', 30 * 86_400_000],
  ['custom', 'Custom…', 0],
];
const STATUSES = [
  ['', 'Any status'],
  ['ok', 'Succeeded (< 400)'],
  ['error', 'Failed (≥ 400)'],
  ['400', '400 Bad request'],
  ['401', '401 Unauthorized'],
  ['402', '402 Quota exceeded'],
  ['404', '404 Not found'],
  ['429', '429 Rate limited'],
  ['499', '499 Client closed'],
  ['500', '500 Internal error'],
  ['502', '502 Bad gateway'],
  ['503', '503 Unavailable'],
  ['504', '504 Timeout'],
];

export function statusBadge(status, errorCode) {
  const kind = status < 400 ? 'ok' : status === 429 || status === 499 ? 'warn' : 'error';
  return badge(errorCode ? `${status} ${errorCode}` : String(status), kind);
}

function timeWindow(query) {
  const range = query.get('range') ?? '24h';
  if (range === 'custom')
    return { range, from: query.get('from') ?? undefined, to: query.get('to') ?? undefined };
  const span = (RANGES.find(([id]) => id === range) ?? RANGES[1])[2];
  return { range, from: new Date(Date.now() - span).toISOString(), to: undefined };
}

function select(name, label, options, value) {
  return field(
    label,
    h(
      'select',
      { name },
      options.map(([v, text]) => h('option', { value: v, selected: v === (value ?? '') }, text)),
    ),
  );
}

/**
 * `source`: '/api/logs' or '/api/admin/logs'; `pagePath` (+ `fixed` query, e.g. the admin tab):
 * where filters navigate; `detailPath`:
 * prefix of the detail page; `models` and `keys` ([{id, name}]) fill the filter menus; `users`
 * (true) adds a user filter that searches users on the server by email (any number of users).
 */
export async function logView({ source, pagePath, fixed = {}, detailPath, query, models, keys, users }) {
  const urlOf = (params) => {
    const all = new URLSearchParams(fixed);
    for (const [k, v] of params) if (!(k in fixed)) all.set(k, v);
    return `${pagePath}?${all}`;
  };
  const win = timeWindow(query);
  const filters = {
    from: win.from,
    to: win.to,
    model: query.get('model') ?? undefined,
    keyId: query.get('keyId') ?? undefined,
    userId: users ? (query.get('userId') ?? undefined) : undefined,
    status: query.get('status') ?? undefined,
    cursor: query.get('cursor') ?? undefined,
    limit: 50,
  };
  const page = await api.get(source, filters);
  const keyName = new Map((keys ?? []).map((k) => [k.id, k.name]));

  const apply = (form) => {
    const data = new FormData(form);
    data.delete('userPick');
    const params = new URLSearchParams();
    for (const [name, value] of data)
      if (value && name !== 'fromLocal' && name !== 'toLocal') params.set(name, value);
    if (params.get('range') === 'custom') {
      const f = fromLocalInput(data.get('fromLocal'));
      const t = fromLocalInput(data.get('toLocal'));
      if (f) params.set('from', f);
      if (t) params.set('to', t);
    }
    navigate(urlOf(params));
  };
  const custom = win.range === 'custom';
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Log filters',
      onchange: (e) => {
        // The user field applies itself once the server has said who the email is.
        if (['fromLocal', 'toLocal', 'userPick'].includes(e.target.name)) return;
        apply(e.currentTarget);
      },
      onsubmit: (e) => {
        e.preventDefault();
        apply(e.currentTarget);
      },
    },
    select(
      'range',
      'Time',
      RANGES.map(([id, label]) => [id, label]),
      win.range,
    ),
    custom
      ? field(
          'From',
          h('input', { type: 'datetime-local', name: 'fromLocal', value: toLocalInput(win.from) }),
        )
      : null,
    custom
      ? field('To', h('input', { type: 'datetime-local', name: 'toLocal', value: toLocalInput(win.to) }))
      : null,
    select('model', 'Model', [['', 'Any model'], ...models.map((m) => [m, m])], filters.model),
    keys
      ? select('keyId', 'Key', [['', 'Any key'], ...keys.map((k) => [k.id, k.name])], filters.keyId)
      : null,
    users ? userFilter(query, (picked) => apply(picked)) : null,
    select('status', 'Status', STATUSES, filters.status),
    custom ? h('button', { type: 'submit', class: 'small' }, 'Apply') : null,
  );

  const rows = page.items.map((item) => {
    const href = `${detailPath}/${encodeURIComponent(item.requestId)}`;
    return h(
      'tr',
      {
        class: 'clickable',
        dataset: { requestId: item.requestId },
        onclick: (e) => e.target.closest('a') || navigate(href),
      },
      h(
        'td',
        {},
        h('a', { href, title: formatPreciseTime(item.startedAt) }, formatShortTime(item.startedAt)),
      ),
      h('td', {}, h('code', {}, item.endpoint), item.stream ? badge('stream', 'muted') : null),
      h('td', {}, item.model ?? '—'),
      h('td', {}, item.providerId ?? '—'),
      h('td', { title: item.errorCode ?? '' }, statusBadge(item.status)),
      keys ? h('td', {}, keyName.get(item.keyId) ?? item.keyId ?? '—') : null,
      h('td', { class: 'num' }, formatMs(item.latencyMs)),
      h('td', { class: 'num' }, formatMs(item.ttftMs)),
      h('td', { class: 'num' }, `${formatNumber(item.inputTokens)} / ${formatNumber(item.outputTokens)}`),
      h(
        'td',
        { class: 'num', title: item.usageEstimated ? 'estimated: the provider reported no usage' : '' },
        formatCredits(item.costCredits),
        item.usageEstimated ? '*' : '',
      ),
    );
  });
  const cols = [
    'Time',
    'Endpoint',
    'Model',
    'Provider',
    'Status',
    keys ? 'Key' : null,
    'Latency',
    'TTFT',
    'Tokens in / out',
    'Cost',
  ].filter(Boolean);

  const withCursor = (cursor) => {
    const p = new URLSearchParams(query);
    p.delete('cursor');
    if (cursor) p.set('cursor', cursor);
    return urlOf(p);
  };
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Log pages' },
    filters.cursor ? h('a', { class: 'button small', href: withCursor(null) }, '← Newest') : h('span'),
    h(
      'span',
      { class: 'muted' },
      `${page.items.length} request${page.items.length === 1 ? '' : 's'} on this page`,
    ),
    page.nextCursor
      ? h('a', { class: 'button small', href: withCursor(page.nextCursor), rel: 'next' }, 'Older →')
      : h('span'),
  );

  return h(
    'div',
    { class: 'log-view' },
    form,
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data compact', id: 'logs-table' },
        h('caption', { class: 'visually-hidden' }, 'Requests, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            cols.map((c, i) => h('th', { scope: 'col', class: i >= cols.length - 4 ? 'num' : null }, c)),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(cols.length, 'No requests match these filters.')),
      ),
    ),
    pager,
  );
}

/**
 * The user filter: an email field searching users on the server; the chosen user's id (and its
 * email, to show again) go in the address as `userId` and `user`.
 */
function userFilter(query, apply) {
  const id = h('input', { type: 'hidden', name: 'userId', value: query.get('userId') ?? '' });
  const email = h('input', { type: 'hidden', name: 'user', value: query.get('user') ?? '' });
  const picker = userPicker({
    label: 'User',
    name: 'userPick',
    value: query.get('user') ?? '',
    onPick: (user) => {
      id.value = user?.id ?? '';
      email.value = user?.email ?? '';
      apply(id.form);
    },
  });
  return field('User', h('span', {}, picker, id, email));
}
