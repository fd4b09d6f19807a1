// Admin: users, groups, providers and everyone's logs, one tab each (the tab is in the address).
import { api } from '../api.js';
import { badge, emptyRow, h } from '../dom.js';
import { formatDateTime, formatMs } from '../format.js';
import { auditTab } from './admin-audit.js';
import { usersTab } from './admin-users.js';
import { pageHeader } from './common.js';
import { logView } from './log-view.js';

const TABS = [
  ['users', 'Users'],
  ['groups', 'Groups'],
  ['providers', 'Providers'],
  ['logs', 'All logs'],
  ['audit', 'Audit'],
];

async function groupsTab() {
  const { groups } = await api.get('/api/admin/groups');
  return h(
    'div',
    { class: 'cards' },
    groups.map((g) =>
      h(
        'section',
        { class: 'panel group-card', 'aria-label': `Group ${g.name}` },
        h('h2', {}, g.name),
        h('p', { class: 'muted' }, `${g.models.length} model${g.models.length === 1 ? '' : 's'}`),
        h(
          'ul',
          { class: 'chips' },
          g.models.map((m) => h('li', {}, h('code', {}, m))),
        ),
      ),
    ),
  );
}

const STATE_KIND = { up: 'ok', half_open: 'warn', down: 'error', disabled: 'muted' };

async function providersTab() {
  const { providers, routes, routerError } = await api.get('/api/admin/providers');
  const candidatesOf = (providerId) =>
    Object.entries(routes?.models ?? {}).flatMap(([model, list]) =>
      list.filter((c) => c.providerId === providerId).map((c) => ({ model, ...c })),
    );
  const rows = providers.map((p) => {
    const cands = candidatesOf(p.id);
    return h(
      'tr',
      { dataset: { providerId: p.id } },
      h('th', { scope: 'row' }, p.id),
      h('td', {}, p.vendor ? `${p.type} (${p.vendor})` : p.type),
      h('td', { class: 'num' }, String(p.priority)),
      h('td', { class: 'num' }, String(p.weight)),
      h(
        'td',
        {},
        p.disabledReason
          ? [badge('disabled', 'muted'), h('div', { class: 'muted small' }, p.disabledReason)]
          : cands.length
            ? h(
                'ul',
                { class: 'states' },
                cands.map((c) =>
                  h(
                    'li',
                    { title: c.reason },
                    badge(c.state.replace('_', '-'), STATE_KIND[c.state]),
                    ' ',
                    h('code', {}, c.model),
                    c.latencyMs !== null && c.latencyMs !== undefined
                      ? h('span', { class: 'muted' }, ` ${formatMs(c.latencyMs)}`)
                      : null,
                    c.state !== 'up' && c.reason ? h('span', { class: 'muted' }, ` — ${c.reason}`) : null,
                  ),
                ),
              )
            : h('span', { class: 'muted' }, 'no route published'),
      ),
    );
  });
  return h(
    'div',
    {},
    routerError
      ? h(
          'p',
          { class: 'notice error' },
          `The router could not be reached: ${routerError}. Showing the configuration only.`,
        )
      : h(
          'p',
          { class: 'muted' },
          routes
            ? `Route table v${routes.version}, generated ${formatDateTime(routes.generatedAt)}.`
            : 'The router has not published routes yet.',
        ),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'providers-table' },
        h('caption', { class: 'visually-hidden' }, 'Providers and their health per model'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Provider', 'Type', 'Priority', 'Weight', 'Health per model'].map((c, i) =>
              h('th', { scope: 'col', class: i === 2 || i === 3 ? 'num' : null }, c),
            ),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(5, 'No providers configured.')),
      ),
    ),
  );
}

async function logsTab(query) {
  const [{ users }, { groups }] = await Promise.all([
    api.get('/api/admin/users'),
    api.get('/api/admin/groups'),
  ]);
  const models = [...new Set(groups.flatMap((g) => g.models))].sort();
  return logView({
    source: '/api/admin/logs',
    pagePath: '/admin',
    fixed: { tab: 'logs' },
    detailPath: '/admin/logs',
    query,
    models,
    users,
  });
}

export async function adminPage({ query }) {
  const tab = TABS.some(([id]) => id === query.get('tab')) ? query.get('tab') : 'users';
  const body =
    tab === 'users'
      ? await usersTab()
      : tab === 'groups'
        ? await groupsTab()
        : tab === 'providers'
          ? await providersTab()
          : tab === 'logs'
            ? await logsTab(query)
            : await auditTab(query);
  return [
    pageHeader('Admin', 'Users, groups, provider health and every request.'),
    h(
      'nav',
      { class: 'subnav', 'aria-label': 'Admin sections' },
      TABS.map(([id, label]) =>
        h('a', { href: `/admin?tab=${id}`, 'aria-current': id === tab ? 'page' : null }, label),
      ),
    ),
    body,
  ];
}
