// Teams: the teams the caller belongs to (docs/teams.md). A team's balance and spend, and its keys:
// a member's own team keys, a team admin's every member's (create for a member, revoke), with the
// members and the team's usage over the last 30 days. The team is in the address (?team=).
import { api } from '../api.js';
import { badge, busy, confirmDialog, emptyRow, h, replace, toast } from '../dom.js';
import { formatCredits, formatNumber, formatRelative } from '../format.js';
import { openCreateKeyDialog } from './key-dialog.js';
import { invalidationNote, pageHeader } from './common.js';
import { pagedList } from './paging.js';

const STATUS_KIND = { active: 'ok', revoked: 'muted', expired: 'warn' };

function stat(label, value) {
  return h(
    'div',
    { class: 'stat' },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, value),
  );
}

function keyTable(keys, team, onRevoke) {
  const head = ['Name', 'Key', 'Owner', 'Group', 'Last used', 'Status', 'Spend (credits)'];
  return h(
    'table',
    { class: 'data', id: 'team-keys-table' },
    h('caption', { class: 'visually-hidden' }, `Keys of team ${team.name}`),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((t) => h('th', { scope: 'col', class: t.startsWith('Spend') ? 'num' : null }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
      ),
    ),
    h(
      'tbody',
      {},
      keys.length
        ? keys.map((k) =>
            h(
              'tr',
              { dataset: { keyId: k.id } },
              h('th', { scope: 'row' }, k.name),
              h('td', {}, h('code', {}, k.displayPrefix)),
              h('td', {}, k.userEmail),
              h('td', {}, k.group),
              h('td', {}, formatRelative(k.lastUsedAt)),
              h('td', {}, badge(k.status, STATUS_KIND[k.status])),
              h('td', { class: 'num' }, formatCredits(k.spentCredits)),
              h(
                'td',
                { class: 'actions' },
                k.status === 'active'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'small danger-outline',
                        'aria-label': `Revoke key ${k.name}`,
                        onclick: (e) => onRevoke(k, e.currentTarget),
                      },
                      'Revoke',
                    )
                  : null,
              ),
            ),
          )
        : [emptyRow(8, 'No team keys yet.')],
    ),
  );
}

function memberList(members) {
  return h(
    'ul',
    { class: 'plain', id: 'team-members' },
    members.map((m) => h('li', {}, m.email, m.admin ? [' ', badge('team admin', 'ok')] : null)),
  );
}

async function teamSection(team, session, refresh) {
  const base = `/api/teams/${encodeURIComponent(team.id)}`;
  // Keys and members a page at a time ("Load more"); `members` is what is loaded so far.
  const keysBox = h('section', { class: 'panel flush' });
  const membersBox = h('section', { class: 'panel' });
  let members = null;
  const keyPages = pagedList({
    path: `${base}/keys`,
    key: 'keys',
    render: (keys) => replace(keysBox, keyTable(keys, team, onRevoke)),
  });
  const memberPages = team.admin
    ? pagedList({
        path: `${base}/members`,
        key: 'members',
        render: (loaded) => replace(membersBox, memberList((members = loaded))),
      })
    : null;
  const onRevoke = async (key, button) => {
    const ok = await confirmDialog({
      title: `Revoke “${key.name}”?`,
      message: `Applications using this key of ${key.userEmail} are refused from now on. This cannot be undone.`,
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!ok) return;
    await busy(button, async () => {
      try {
        const { invalidation } = await api.post(`${base}/keys/${encodeURIComponent(key.id)}/revoke`);
        toast(`Key “${key.name}” revoked.${invalidationNote(invalidation)}`);
      } catch (err) {
        toast(err.message);
      }
      refresh();
    });
  };
  const [usage, , , { groups }] = await Promise.all([
    api.get(`${base}/usage`),
    keyPages.reload(),
    memberPages?.reload(),
    api.get('/api/groups'),
  ]);
  // The groups the team allows, with their models as the caller may see them.
  const teamGroups = team.groups.map((name) => groups.find((g) => g.name === name) ?? { name, models: [] });
  const create = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      disabled: teamGroups.length === 0,
      onclick: () =>
        openCreateKeyDialog(teamGroups, refresh, {
          endpoint: `${base}/keys`,
          members: members?.map((m) => ({ ...m, self: m.userId === session.user.id })) ?? null,
        }),
    },
    'Create team key',
  );
  return [
    h(
      'div',
      { class: 'stats', id: 'team-summary' },
      stat('Balance', `${formatCredits(usage.balanceCredits)} credits`),
      stat(
        team.admin ? 'Spent, last 30 days' : 'You spent, last 30 days',
        `${formatCredits(usage.totals.costCredits)} credits`,
      ),
      stat('Requests, last 30 days', formatNumber(usage.totals.requests)),
      stat('Groups', team.groups.join(', ') || 'none'),
    ),
    h(
      'p',
      { class: 'muted' },
      team.admin
        ? 'You are a team admin: you see and manage every member’s team keys and the whole team’s usage.'
        : 'You see your own team keys and your own usage in the team.',
    ),
    h('div', { class: 'toolbar spread' }, h('h2', {}, team.admin ? 'Team keys' : 'Your team keys'), create),
    keysBox,
    keyPages.footer,
    memberPages ? [h('h2', {}, `Members (${team.memberCount})`), membersBox, memberPages.footer] : null,
  ];
}

export async function teamsPage(ctx) {
  const { teams } = await api.get('/api/teams');
  const header = pageHeader('Teams', 'Keys of a team spend the team’s credits and count in its budgets.');
  if (teams.length === 0)
    return [
      header,
      h('p', { class: 'notice' }, 'You are not a member of any team; an administrator adds members.'),
    ];
  const wanted = ctx.query.get('team');
  const team = teams.find((t) => t.id === wanted) ?? teams[0];
  const body = h('div', {}, await teamSection(team, ctx.session, ctx.refresh));
  return [
    header,
    teams.length > 1
      ? h(
          'nav',
          { class: 'subnav', 'aria-label': 'Teams' },
          teams.map((t) =>
            h(
              'a',
              {
                href: `/teams?team=${encodeURIComponent(t.id)}`,
                'aria-current': t.id === team.id ? 'page' : null,
              },
              t.name,
            ),
          ),
        )
      : h('h2', { class: 'team-name' }, team.name, team.admin ? [' ', badge('team admin', 'ok')] : null),
    body,
  ];
}
