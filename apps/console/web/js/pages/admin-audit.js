// Admin: the audit trail. Who changed what, when and from where, with the state before and after;
// filters and the page cursor live in the address, like the logs. Everything shown is text (h()).
import { api } from '../api.js';
import { badge, emptyRow, field, h } from '../dom.js';
import { formatPreciseTime, formatShortTime, fromLocalInput, toLocalInput } from '../format.js';
import { navigate } from '../router.js';

const FAMILIES = [
  ['', 'Any action'],
  ['auth', 'Sign-ins and tokens'],
  ['access', 'Refused access'],
  ['user', 'Users'],
  ['credits', 'Credits'],
  ['budget', 'Budgets'],
  ['key', 'Keys'],
  ['config', 'Configuration'],
  ['setup', 'Setup'],
];
const OUTCOMES = [
  ['', 'Any outcome'],
  ['ok', 'Done'],
  ['refused', 'Refused'],
];

const actorText = (a) => (a.kind === 'token' ? `token: ${a.tokenName ?? '?'}` : (a.email ?? a.id ?? a.kind));

function json(value) {
  return value === null || value === undefined ? '—' : JSON.stringify(value, null, 2);
}

function detailRow(e, colspan) {
  return h(
    'tr',
    { class: 'audit-detail' },
    h(
      'td',
      { colspan },
      h(
        'dl',
        { class: 'details' },
        h('dt', {}, 'When'),
        h('dd', {}, formatPreciseTime(e.at)),
        h('dt', {}, 'User agent'),
        h('dd', {}, e.userAgent ?? '—'),
        h('dt', {}, 'Target'),
        h('dd', {}, e.target.type ?? '—', ' ', e.target.id ? h('code', {}, e.target.id) : null),
        e.reason ? [h('dt', {}, 'Reason'), h('dd', {}, e.reason)] : null,
        h('dt', {}, 'Hash'),
        h('dd', {}, h('code', {}, e.hash)),
      ),
      h(
        'div',
        { class: 'grid-2' },
        h('section', {}, h('h3', {}, 'Before'), h('pre', { class: 'document' }, json(e.before))),
        h('section', {}, h('h3', {}, 'After'), h('pre', { class: 'document' }, json(e.after))),
      ),
    ),
  );
}

function filterForm(query, urlOf) {
  const apply = (form) => {
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const [name, value] of data) {
      if (!value) continue;
      if (name === 'fromLocal') params.set('from', fromLocalInput(value));
      else if (name === 'toLocal') params.set('to', fromLocalInput(value));
      else params.set(name, String(value).trim());
    }
    navigate(urlOf(params));
  };
  const select = (name, label, options) =>
    field(
      label,
      h(
        'select',
        { name },
        options.map(([v, text]) => h('option', { value: v, selected: v === (query.get(name) ?? '') }, text)),
      ),
    );
  return h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Audit filters',
      onsubmit: (e) => {
        e.preventDefault();
        apply(e.currentTarget);
      },
    },
    field(
      'Who',
      h('input', {
        name: 'actor',
        type: 'search',
        maxlength: '320',
        value: query.get('actor') ?? '',
        placeholder: 'email, user id or token',
      }),
    ),
    select('action', 'Action', FAMILIES),
    field(
      'Target',
      h('input', {
        name: 'target',
        type: 'search',
        maxlength: '200',
        value: query.get('target') ?? '',
        placeholder: 'id or type',
      }),
    ),
    select('outcome', 'Outcome', OUTCOMES),
    field(
      'From',
      h('input', { type: 'datetime-local', name: 'fromLocal', value: toLocalInput(query.get('from')) }),
    ),
    field(
      'To',
      h('input', { type: 'datetime-local', name: 'toLocal', value: toLocalInput(query.get('to')) }),
    ),
    h('button', { type: 'submit', class: 'small' }, 'Apply'),
  );
}

function chainNote(chain) {
  if (chain.ok)
    return h(
      'p',
      { class: 'muted', id: 'audit-chain' },
      badge('chain intact', 'ok'),
      ` ${chain.checked} event${chain.checked === 1 ? '' : 's'} verified`,
      chain.fromGenesis ? '' : ' (from an archive checkpoint)',
      '.',
    );
  return h(
    'p',
    { class: 'notice error', id: 'audit-chain', role: 'alert' },
    badge('chain broken', 'error'),
    ` at event ${chain.break.id}: ${chain.break.kind === 'unlinked' ? 'the event before it was removed' : 'it was altered'}.`,
  );
}

/** `query`: the page's address query (the `tab` is kept by `urlOf`). */
export async function auditTab(query) {
  const urlOf = (params) => {
    const all = new URLSearchParams({ tab: 'audit' });
    for (const [k, v] of params) if (k !== 'tab') all.set(k, v);
    return `/admin?${all}`;
  };
  const filters = {};
  for (const name of ['actor', 'action', 'target', 'outcome', 'from', 'to', 'cursor'])
    if (query.get(name)) filters[name] = query.get(name);
  const [page, { chain }] = await Promise.all([
    api.get('/api/admin/audit', { ...filters, limit: 50 }),
    api.get('/api/admin/audit/verify'),
  ]);
  const cols = ['Time', 'Who', 'From', 'Action', 'Target', 'Outcome'];
  const rows = page.events.flatMap((e) => {
    const detail = detailRow(e, cols.length);
    detail.hidden = true;
    const toggle = h(
      'button',
      {
        type: 'button',
        class: 'ghost small',
        'aria-expanded': 'false',
        onclick: () => {
          detail.hidden = !detail.hidden;
          toggle.setAttribute('aria-expanded', String(!detail.hidden));
        },
      },
      formatShortTime(e.at),
    );
    return [
      h(
        'tr',
        { dataset: { auditId: e.id } },
        h('td', { title: formatPreciseTime(e.at) }, toggle),
        h('td', {}, actorText(e.actor)),
        h('td', {}, e.ip ?? '—'),
        h('td', {}, h('code', {}, e.action)),
        h(
          'td',
          {},
          e.target.type ?? '—',
          e.target.id ? h('span', { class: 'muted' }, ` ${e.target.id}`) : null,
        ),
        h(
          'td',
          { title: e.reason ?? '' },
          e.outcome === 'ok' ? badge('done', 'ok') : badge('refused', 'warn'),
        ),
      ),
      detail,
    ];
  });
  const withCursor = (cursor) => {
    const p = new URLSearchParams(query);
    p.delete('cursor');
    if (cursor) p.set('cursor', cursor);
    return urlOf(p);
  };
  const exportQuery = new URLSearchParams(filters);
  exportQuery.delete('cursor');
  return h(
    'div',
    { class: 'log-view' },
    chainNote(chain),
    filterForm(query, urlOf),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data compact', id: 'audit-table' },
        h('caption', { class: 'visually-hidden' }, 'Audit events, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            cols.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(cols.length, 'No events match these filters.')),
      ),
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Audit pages' },
      filters.cursor ? h('a', { class: 'button small', href: withCursor(null) }, '← Newest') : h('span'),
      h(
        'a',
        {
          class: 'button small',
          href: `/api/admin/audit/export?${exportQuery}`,
          download: 'audit-events.jsonl',
        },
        'Export (JSON lines)',
      ),
      page.next
        ? h('a', { class: 'button small', href: withCursor(page.next), rel: 'next' }, 'Older →')
        : h('span'),
    ),
  );
}
