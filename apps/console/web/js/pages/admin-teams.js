// Admin: teams (docs/teams.md). Create a team with the groups its keys may use; open one to add and
// remove members, make them team admins, grant credits and set budgets. Auditors read only.
import { api } from '../api.js';
import {
  badge,
  busy,
  confirmDialog,
  emptyRow,
  errorBox,
  field,
  h,
  openDialog,
  replace,
  toast,
} from '../dom.js';
import { formatCredits, formatDate } from '../format.js';
import { openBudgetsDialog } from './budgets-dialog.js';
import { invalidationNote } from './common.js';
import { pagedList, searchBox, userPicker } from './paging.js';

function groupChecks(groups, selected) {
  const boxes = groups.map((g) =>
    h('input', { type: 'checkbox', name: 'group', value: g.name, checked: selected.includes(g.name) }),
  );
  return {
    el: h(
      'div',
      { class: 'checks' },
      boxes.map((b, i) => h('label', { class: 'check' }, b, groups[i].name)),
    ),
    value: () => boxes.filter((b) => b.checked).map((b) => b.value),
  };
}

function openTeamDialog({ title, team, groups, onSaved }) {
  const name = h('input', {
    type: 'text',
    name: 'name',
    required: true,
    maxlength: '100',
    value: team?.name ?? '',
  });
  const checks = groupChecks(groups, team?.groups ?? []);
  const error = errorBox();
  const submit = h('button', { type: 'submit', class: 'primary', form: 'team-form' }, 'Save');
  const form = h(
    'form',
    {
      id: 'team-form',
      onsubmit: async (event) => {
        event.preventDefault();
        error.clear();
        const body = { name: name.value.trim(), groups: checks.value() };
        await busy(submit, async () => {
          try {
            const res = team
              ? await api.patch(`/api/admin/teams/${encodeURIComponent(team.id)}`, body)
              : await api.post('/api/admin/teams', body);
            dialog.close();
            toast(
              `Team “${res.team.name}” saved.${res.invalidation ? invalidationNote(res.invalidation) : ''}`,
            );
            onSaved(res.team);
          } catch (err) {
            error.show(err.message);
          }
        });
      },
    },
    field('Name', name),
    h('fieldset', {}, h('legend', {}, 'Groups its keys may use'), checks.el),
    error,
  );
  const dialog = openDialog({
    title,
    body: form,
    actions: [h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), submit],
  });
}

async function teamDetail(id, canManage, refresh) {
  const base = `/api/admin/teams/${encodeURIComponent(id)}`;
  const [{ team, grants }, { groups }] = await Promise.all([api.get(base), api.get('/api/admin/groups')]);
  const act = (button, fn, done) =>
    busy(button, async () => {
      try {
        toast(await fn());
      } catch (err) {
        toast(err.message);
      }
      (done ?? refresh)();
    });
  const memberRow = (m) =>
    h(
      'tr',
      { dataset: { userId: m.userId } },
      h('th', { scope: 'row' }, m.email),
      h('td', {}, m.admin ? badge('team admin', 'ok') : 'member'),
      h('td', {}, formatDate(m.addedAt)),
      h(
        'td',
        { class: 'actions', hidden: !canManage },
        h(
          'button',
          {
            type: 'button',
            class: 'small',
            onclick: (e) =>
              act(e.currentTarget, async () => {
                await api.patch(`${base}/members/${m.userId}`, { admin: !m.admin });
                return `${m.email} is ${m.admin ? 'no longer' : 'now'} a team admin.`;
              }),
          },
          m.admin ? 'Revoke team admin' : 'Make team admin',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'small danger-outline',
            onclick: async (e) => {
              const ok = await confirmDialog({
                title: `Remove ${m.email}?`,
                message: 'Their keys of this team stop working at once.',
                confirmLabel: 'Remove member',
                danger: true,
              });
              if (ok)
                await act(e.currentTarget, async () => {
                  const { invalidation } = await api.del(`${base}/members/${m.userId}`);
                  return `${m.email} removed.${invalidationNote(invalidation)}`;
                });
            },
          },
          'Remove',
        ),
      ),
    );
  // Members a page at a time, in email order; the one to add is found by a server search.
  const membersBody = h('tbody');
  const memberPages = pagedList({
    path: `${base}/members`,
    key: 'members',
    render: (members) =>
      replace(membersBody, members.length ? members.map(memberRow) : [emptyRow(4, 'No members yet.')]),
  });
  await memberPages.reload();
  let picked = null;
  const add = h('button', { type: 'submit', class: 'primary', disabled: true }, 'Add member');
  const who = userPicker({
    label: 'User',
    name: 'member',
    onPick: (user) => {
      picked = user;
      add.disabled = user === null;
    },
  });
  const asAdmin = h('input', { type: 'checkbox', name: 'admin' });
  const credits = h('input', {
    type: 'number',
    name: 'credits',
    step: 'any',
    required: true,
    placeholder: 'Credits (negative takes back)',
    'aria-label': 'Credits',
  });
  const note = h('input', {
    type: 'text',
    name: 'note',
    maxlength: '500',
    placeholder: 'Note',
    'aria-label': 'Note',
  });
  const grant = h('button', { type: 'submit', class: 'primary' }, 'Grant credits');

  return h(
    'section',
    { class: 'panel', id: 'team-detail' },
    h(
      'div',
      { class: 'toolbar spread' },
      h('h2', {}, team.name),
      h(
        'div',
        { class: 'inline-form' },
        h(
          'button',
          {
            type: 'button',
            class: 'small',
            onclick: () =>
              void openBudgetsDialog({
                title: `Budgets of team “${team.name}”`,
                base: `${base}/budgets`,
                groups,
              }),
          },
          'Budgets',
        ),
        canManage
          ? h(
              'button',
              {
                type: 'button',
                class: 'small',
                onclick: () =>
                  openTeamDialog({ title: `Edit “${team.name}”`, team, groups, onSaved: refresh }),
              },
              'Edit',
            )
          : null,
      ),
    ),
    h(
      'p',
      { class: 'muted' },
      `Balance ${formatCredits(team.balanceCredits)} credits · spent ${formatCredits(team.spentCredits)} · groups ${team.groups.join(', ') || 'none'}`,
    ),
    h(
      'table',
      { class: 'data', id: 'team-members-table' },
      h('caption', { class: 'visually-hidden' }, `Members of ${team.name}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Member', 'Role in team', 'Added'].map((t) => h('th', { scope: 'col' }, t)),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      membersBody,
    ),
    memberPages.footer,
    canManage
      ? h(
          'form',
          {
            class: 'inline-form',
            onsubmit: (e) => {
              e.preventDefault();
              void act(add, async () => {
                await api.post(`${base}/members`, { userId: picked.id, admin: asAdmin.checked });
                return 'Member added.';
              });
            },
          },
          who,
          h('label', { class: 'check' }, asAdmin, 'team admin'),
          add,
        )
      : null,
    canManage
      ? h(
          'form',
          {
            class: 'inline-form',
            onsubmit: (e) => {
              e.preventDefault();
              void act(grant, async () => {
                const res = await api.post(`${base}/grants`, {
                  credits: Number(credits.value),
                  note: note.value,
                });
                return `Balance now ${formatCredits(res.balanceCredits)} credits.`;
              });
            },
          },
          credits,
          note,
          grant,
        )
      : null,
    grants.length
      ? h(
          'p',
          { class: 'muted' },
          `Last grant: ${formatCredits(grants[0].credits)} credits on ${formatDate(grants[0].createdAt)}${grants[0].note ? ` (${grants[0].note})` : ''}.`,
        )
      : null,
  );
}

export async function teamsTab(session, query, refresh) {
  const canManage = session.user.role === 'admin';
  const { groups } = await api.get('/api/admin/groups');
  const open = query.get('team');
  // In name order, a page at a time; the search (the start of a name) is the server's.
  let search = '';
  const tbody = h('tbody');
  const list = pagedList({
    path: '/api/admin/teams',
    key: 'teams',
    params: () => ({ q: search || undefined }),
    render: (teams) =>
      replace(
        tbody,
        teams.length ? teams.map(row) : [emptyRow(5, search ? 'No teams match.' : 'No teams yet.')],
      ),
  });
  const row = (t) =>
    h(
      'tr',
      { dataset: { teamId: t.id }, 'aria-current': t.id === open ? 'true' : null },
      h(
        'th',
        { scope: 'row' },
        h('a', { href: `/admin?tab=teams&team=${encodeURIComponent(t.id)}` }, t.name),
      ),
      h('td', {}, t.groups.join(', ') || '—'),
      h('td', { class: 'num' }, String(t.memberCount)),
      h('td', { class: 'num' }, formatCredits(t.balanceCredits)),
      h('td', { class: 'num' }, formatCredits(t.spentCredits)),
    );
  await list.reload();
  return [
    h(
      'div',
      { class: 'toolbar' },
      searchBox({
        label: 'Search teams by name',
        placeholder: 'Name starts with…',
        onSearch: (q) => {
          search = q;
          return list.reload();
        },
      }),
      canManage
        ? h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: () => openTeamDialog({ title: 'New team', groups, onSaved: refresh }),
            },
            'New team',
          )
        : null,
    ),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'teams-table' },
        h('caption', { class: 'visually-hidden' }, 'Teams'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Team', 'Groups', 'Members', 'Balance (credits)', 'Spent (credits)'].map((t, i) =>
              h('th', { scope: 'col', class: i >= 2 ? 'num' : null }, t),
            ),
          ),
        ),
        tbody,
      ),
      list.footer,
    ),
    open
      ? await teamDetail(open, canManage, refresh).catch((err) => h('p', { class: 'notice' }, err.message))
      : null,
  ];
}
