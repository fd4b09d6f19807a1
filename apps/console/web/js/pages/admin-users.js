// Admin: users, with create, enable/disable, role and groups, and credit grants.
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
import { pagedList, searchBox } from './paging.js';

/** The console's roles (docs/console-api.md, Roles), weakest first as the select offers them. */
const ROLES = [
  ['member', 'Member: own keys, usage and logs'],
  ['auditor', 'Auditor: reads everything, changes nothing'],
  ['operator', 'Operator: providers, models, groups, routes'],
  ['admin', 'Administrator: everything'],
];

function groupPicker(allGroups, selected) {
  const useDefault = h('input', { type: 'checkbox', name: 'useDefault', checked: selected === null });
  const boxes = allGroups.map((g) =>
    h('input', {
      type: 'checkbox',
      name: 'group',
      value: g.name,
      checked: (selected ?? []).includes(g.name),
    }),
  );
  const list = h(
    'div',
    { class: 'checks' },
    boxes.map((box, i) => h('label', { class: 'check' }, box, allGroups[i].name)),
  );
  const sync = () => boxes.forEach((b) => (b.disabled = useDefault.checked));
  useDefault.addEventListener('change', sync);
  sync();
  return {
    el: h(
      'fieldset',
      {},
      h('legend', {}, 'Groups'),
      h('label', { class: 'check' }, useDefault, 'The default groups of the configuration'),
      list,
    ),
    value: () => (useDefault.checked ? null : boxes.filter((b) => b.checked).map((b) => b.value)),
  };
}

/** A dialog with a form; `submit(values)` returns a promise; errors show in the dialog. */
function formDialog({ title, fields, submitLabel, submit }) {
  const error = errorBox();
  const button = h('button', { type: 'submit', class: 'primary', form: 'admin-form' }, submitLabel);
  const form = h(
    'form',
    {
      id: 'admin-form',
      onsubmit: async (e) => {
        e.preventDefault();
        error.clear();
        await busy(button, async () => {
          try {
            await submit();
            dialog.close();
          } catch (err) {
            error.show(err.message);
          }
        });
      },
    },
    fields,
    error,
  );
  const dialog = openDialog({
    title,
    body: form,
    actions: [h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), button],
  });
  form.querySelector('input, select')?.focus();
}

/** Auditors see the list; only admins get the buttons (the API refuses the rest anyway). */
export async function usersTab(session) {
  const canManage = session.user.role === 'admin';
  const { groups } = await api.get('/api/admin/groups');
  const tbody = h('tbody');
  // Search and filters are the server's (a page at a time, in email order): the list is never whole.
  const filters = { q: '', role: '', status: '' };
  const list = pagedList({
    path: '/api/admin/users',
    key: 'users',
    params: () => ({
      q: filters.q || undefined,
      role: filters.role || undefined,
      status: filters.status || undefined,
    }),
    render: (users) => render(users),
  });
  const reload = () => list.reload();

  const createUser = () => {
    const email = h('input', { type: 'email', required: true, maxlength: '254', autocomplete: 'off' });
    const password = h('input', {
      type: 'password',
      required: true,
      minlength: '12',
      maxlength: '200',
      autocomplete: 'new-password',
    });
    const role = h(
      'select',
      {},
      ROLES.map(([value, label]) => h('option', { value }, label)),
    );
    const picker = groupPicker(groups, null);
    formDialog({
      title: 'Add user',
      submitLabel: 'Add user',
      fields: [
        field('Email', email),
        field('Initial password', password, 'At least 12 characters; share it safely.'),
        field('Role', role),
        picker.el,
      ],
      submit: async () => {
        const body = { email: email.value.trim(), password: password.value, role: role.value };
        const g = picker.value();
        if (g !== null) body.groups = g;
        await api.post('/api/admin/users', body);
        toast(`User ${body.email} added`);
        await reload();
      },
    });
  };

  const grant = (user) => {
    const credits = h('input', { type: 'number', step: 'any', required: true, inputmode: 'decimal' });
    const note = h('input', { type: 'text', maxlength: '200' });
    formDialog({
      title: `Grant credits to ${user.email}`,
      submitLabel: 'Grant',
      fields: [
        h('p', { class: 'muted' }, `Current balance: ${formatCredits(user.balanceCredits)} credits.`),
        field('Credits', credits, 'A negative amount takes credits back.'),
        field('Note', note, 'Optional, kept with the grant.'),
      ],
      submit: async () => {
        const body = { credits: Number(credits.value) };
        if (note.value.trim()) body.note = note.value.trim();
        const res = await api.post(`/api/admin/users/${encodeURIComponent(user.id)}/grants`, body);
        toast(`Balance of ${user.email}: ${formatCredits(res.balanceCredits)} credits`);
        await reload();
      },
    });
  };

  const edit = (user) => {
    const role = h(
      'select',
      {},
      ROLES.map(([value, label]) => h('option', { value, selected: user.role === value }, label)),
    );
    const picker = groupPicker(groups, user.groups);
    formDialog({
      title: `Edit ${user.email}`,
      submitLabel: 'Save',
      fields: [field('Role', role, 'Changing the role ends the user’s sessions.'), picker.el],
      submit: async () => {
        await api.patch(`/api/admin/users/${encodeURIComponent(user.id)}`, {
          role: role.value,
          groups: picker.value(),
        });
        toast(`Saved ${user.email}`);
        await reload();
      },
    });
  };

  const toggle = async (user, button) => {
    const disabling = user.status === 'active';
    if (
      disabling &&
      !(await confirmDialog({
        title: `Disable ${user.email}?`,
        message: 'Their sessions end and all their keys stop working on every edge until re-enabled.',
        confirmLabel: 'Disable user',
        danger: true,
      }))
    )
      return;
    await busy(button, async () => {
      try {
        const { invalidation } = await api.patch(`/api/admin/users/${encodeURIComponent(user.id)}`, {
          status: disabling ? 'disabled' : 'active',
        });
        toast(`${user.email} ${disabling ? 'disabled' : 'enabled'}.${invalidationNote(invalidation)}`);
      } catch (err) {
        toast(err.message);
      }
      await reload();
    });
  };

  const render = (list) =>
    replace(
      tbody,
      list.length
        ? list.map((u) =>
            h(
              'tr',
              { dataset: { userId: u.id } },
              h('th', { scope: 'row' }, u.email),
              h(
                'td',
                {},
                u.role === 'member' ? 'member' : badge(u.role, u.role === 'admin' ? 'admin' : null),
              ),
              h('td', {}, badge(u.status, u.status === 'active' ? 'ok' : 'muted')),
              h(
                'td',
                {},
                u.effectiveGroups.join(', ') || '—',
                u.groups === null ? h('span', { class: 'muted' }, ' (default)') : null,
              ),
              h('td', { class: 'num' }, formatCredits(u.balanceCredits)),
              h('td', {}, formatDate(u.createdAt)),
              h(
                'td',
                { class: 'actions', hidden: !canManage },
                h('button', { type: 'button', class: 'small', onclick: () => grant(u) }, 'Grant credits'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    onclick: () =>
                      void openBudgetsDialog({
                        title: `Budgets of ${u.email} (all keys)`,
                        base: `/api/admin/users/${encodeURIComponent(u.id)}/budgets`,
                        groups,
                      }),
                  },
                  'Budgets',
                ),
                h('button', { type: 'button', class: 'small', onclick: () => edit(u) }, 'Edit'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: u.status === 'active' ? 'small danger-outline' : 'small',
                    onclick: (e) => toggle(u, e.currentTarget),
                  },
                  u.status === 'active' ? 'Disable' : 'Enable',
                ),
              ),
            ),
          )
        : emptyRow(7, filters.q || filters.role || filters.status ? 'No users match.' : 'No users.'),
    );
  await list.reload();
  const filter = (name, label, options) =>
    h(
      'select',
      {
        'aria-label': label,
        name,
        onchange: (e) => {
          filters[name] = e.currentTarget.value;
          void reload();
        },
      },
      options.map(([value, text]) => h('option', { value }, text)),
    );

  return h(
    'div',
    {},
    h(
      'div',
      { class: 'toolbar' },
      searchBox({
        label: 'Search users by email',
        placeholder: 'Email starts with…',
        onSearch: (q) => {
          filters.q = q;
          return reload();
        },
      }),
      filter('role', 'Role', [['', 'Any role'], ...ROLES.map(([value]) => [value, value])]),
      filter('status', 'Status', [
        ['', 'Any status'],
        ['active', 'active'],
        ['disabled', 'disabled'],
      ]),
      canManage ? h('button', { type: 'button', class: 'primary', onclick: createUser }, 'Add user') : null,
    ),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'users-table' },
        h('caption', { class: 'visually-hidden' }, 'Users'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Email', 'Role', 'Status', 'Groups', 'Balance (credits)', 'Created'].map((c) =>
              h('th', { scope: 'col', class: c.startsWith('Balance') ? 'num' : null }, c),
            ),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        tbody,
      ),
      list.footer,
    ),
  );
}
