// Admin: users, the live configuration (providers, models, groups, its history, import and
// export) and everyone's logs, one tab each (the tab is in the address).
import { api } from '../api.js';
import { h } from '../dom.js';
import { auditTab } from './admin-audit.js';
import { usersTab } from './admin-users.js';
import { pageHeader } from './common.js';
import { groupsTab } from './config-groups.js';
import { historyTab } from './config-history.js';
import { modelsTab } from './config-models.js';
import { providersTab } from './config-providers.js';
import { transferTab } from './config-transfer.js';
import { logView } from './log-view.js';

const TABS = [
  ['users', 'Users'],
  ['providers', 'Providers'],
  ['models', 'Models'],
  ['groups', 'Groups'],
  ['history', 'History'],
  ['transfer', 'Import/Export'],
  ['logs', 'All logs'],
  ['audit', 'Audit'],
];

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

const RENDER = {
  users: () => usersTab(),
  providers: providersTab,
  models: modelsTab,
  groups: groupsTab,
  history: historyTab,
  transfer: transferTab,
  logs: ({ query }) => logsTab(query),
  audit: ({ query }) => auditTab(query),
};

export async function adminPage(ctx) {
  const requested = ctx.query.get('tab');
  const tab = TABS.some(([id]) => id === requested) ? requested : 'users';
  const body = await RENDER[tab](ctx);
  return [
    pageHeader('Admin', 'Users, the providers, models and groups the gateway serves, and every request.'),
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
