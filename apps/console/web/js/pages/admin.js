// Admin: users, the live configuration (providers, models, groups, its history, import and
// export), everyone's logs, the audit trail and admin tokens, one tab each (the tab is in the
// address). Each role sees the tabs its API routes allow (docs/console-api.md, Roles).
import { api } from '../api.js';
import { h } from '../dom.js';
import { auditTab } from './admin-audit.js';
import { teamsTab } from './admin-teams.js';
import { tokensTab } from './admin-tokens.js';
import { usersTab } from './admin-users.js';
import { pageHeader } from './common.js';
import { groupsTab } from './config-groups.js';
import { historyTab } from './config-history.js';
import { modelsTab } from './config-models.js';
import { providersTab } from './config-providers.js';
import { transferTab } from './config-transfer.js';
import { logView } from './log-view.js';

const STAFF = ['admin', 'operator', 'auditor'];
const OVERSIGHT = ['admin', 'auditor'];
/** [tab, label, roles that may open it]: the roles of the API routes the tab reads. */
const TABS = [
  ['users', 'Users', OVERSIGHT],
  ['teams', 'Teams', OVERSIGHT],
  ['providers', 'Providers', STAFF],
  ['models', 'Models', STAFF],
  ['groups', 'Groups', STAFF],
  ['history', 'History', STAFF],
  ['transfer', 'Import/Export', STAFF],
  ['logs', 'All logs', STAFF],
  ['audit', 'Audit', OVERSIGHT],
  ['tokens', 'Tokens', OVERSIGHT],
];

async function logsTab(query, role) {
  // Operators may not list users (no users or money): their log filter has no user picker.
  const { groups } = await api.get('/api/admin/groups');
  const users = OVERSIGHT.includes(role);
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
  users: ({ session }) => usersTab(session),
  teams: ({ session, query, refresh }) => teamsTab(session, query, refresh),
  providers: providersTab,
  models: modelsTab,
  groups: groupsTab,
  history: historyTab,
  transfer: transferTab,
  logs: ({ query, session }) => logsTab(query, session.user.role),
  audit: ({ query }) => auditTab(query),
  tokens: ({ session }) => tokensTab(session),
};

export async function adminPage(ctx) {
  const tabs = TABS.filter(([, , roles]) => roles.includes(ctx.session.user.role));
  const requested = ctx.query.get('tab');
  const tab = tabs.some(([id]) => id === requested) ? requested : tabs[0][0];
  const body = await RENDER[tab](ctx);
  return [
    pageHeader('Admin', 'Users, the providers, models and groups the gateway serves, and every request.'),
    h(
      'nav',
      { class: 'subnav', 'aria-label': 'Admin sections' },
      tabs.map(([id, label]) =>
        h('a', { href: `/admin?tab=${id}`, 'aria-current': id === tab ? 'page' : null }, label),
      ),
    ),
    body,
  ];
}
