// Admin: named tokens for automation (role, expiry, last use), created with the secret shown once,
// and revoked. Auditors see the list without the buttons; the API refuses them anyway.
import { api } from '../api.js';
import {
  badge,
  busy,
  confirmDialog,
  copyText,
  emptyRow,
  errorBox,
  field,
  h,
  openDialog,
  replace,
  toast,
} from '../dom.js';
import { formatDateTime, formatRelative } from '../format.js';
import { pagedList } from './paging.js';

const STATE_KIND = { active: 'ok', revoked: 'muted', expired: 'warn' };
const ROLE_HINT = {
  admin: 'everything',
  operator: 'providers, models, groups, routes; no users or money',
  auditor: 'reads everything, changes nothing',
};
const EXPIRY_DAYS = [
  ['7', '7 days'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
];

function revealBody(secret, token) {
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: secret,
    class: 'secret',
    'aria-label': 'Your new admin token',
    spellcheck: 'false',
    autocomplete: 'off',
    onfocus: (e) => e.target.select(),
  });
  return [
    h(
      'div',
      { class: 'warning', role: 'alert' },
      h('strong', {}, 'Copy this token now. '),
      'It is shown only this once: the console stores a hash, not the token. If you lose it, revoke it and create another.',
    ),
    h(
      'div',
      { class: 'secret-row' },
      input,
      h('button', { type: 'button', class: 'primary', onclick: () => copyText(secret, input) }, 'Copy'),
    ),
    h(
      'p',
      { class: 'muted' },
      `Token “${token.name}” (${token.role}), valid until ${formatDateTime(token.expiresAt)}. Send it as `,
      h('code', {}, 'Authorization: Bearer gwa_…'),
      '.',
    ),
  ];
}

function openCreateDialog(onCreated) {
  const name = h('input', {
    type: 'text',
    name: 'name',
    required: true,
    maxlength: '100',
    autocomplete: 'off',
  });
  const role = h(
    'select',
    { name: 'role' },
    Object.entries(ROLE_HINT).map(([value, hint]) =>
      h('option', { value, selected: value === 'operator' }, `${value}: ${hint}`),
    ),
  );
  const expiry = h(
    'select',
    { name: 'expiresInDays' },
    EXPIRY_DAYS.map(([value, label]) => h('option', { value, selected: value === '90' }, label)),
  );
  const error = errorBox();
  const submit = h('button', { type: 'submit', class: 'primary', form: 'create-token-form' }, 'Create token');
  const cancel = h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel');
  const form = h(
    'form',
    {
      id: 'create-token-form',
      onsubmit: async (event) => {
        event.preventDefault();
        error.clear();
        const body = { name: name.value.trim(), role: role.value, expiresInDays: Number(expiry.value) };
        await busy(submit, async () => {
          try {
            const created = await api.post('/api/admin/tokens', body);
            onCreated();
            dialog
              .querySelector('.dialog-body')
              .replaceChildren(...revealBody(created.secret, created.token));
            dialog.querySelector('h2').textContent = 'Your new admin token';
            const done = h(
              'button',
              { type: 'button', class: 'primary', onclick: () => dialog.close() },
              'Done',
            );
            dialog.querySelector('footer').replaceChildren(done);
            dialog.querySelector('input.secret').focus();
          } catch (err) {
            error.show(err.message);
          }
        });
      },
    },
    field('Name', name, 'What uses it, e.g. "terraform" or "nightly export".'),
    h(
      'div',
      { class: 'grid-2' },
      field('Role', role),
      field('Expires in', expiry, 'Required: at most a year.'),
    ),
    error,
  );
  const dialog = openDialog({
    title: 'Create admin token',
    body: form,
    actions: [cancel, submit],
    wide: true,
  });
  name.focus();
}

export async function tokensTab(session) {
  const canManage = session.user.role === 'admin';
  const tbody = h('tbody');
  // Newest first, a page at a time.
  const list = pagedList({ path: '/api/admin/tokens', key: 'tokens', render: (tokens) => render(tokens) });
  const reload = () => list.reload();

  const revoke = async (token, button) => {
    const confirmed = await confirmDialog({
      title: `Revoke “${token.name}”?`,
      message: 'Whatever uses it is refused from its next request. This cannot be undone.',
      confirmLabel: 'Revoke token',
      danger: true,
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await api.post(`/api/admin/tokens/${encodeURIComponent(token.id)}/revoke`);
        toast(`Token “${token.name}” revoked.`);
      } catch (err) {
        toast(err.message);
      }
      await reload();
    });
  };

  const render = (tokens) =>
    replace(
      tbody,
      tokens.length
        ? tokens.map((t) =>
            h(
              'tr',
              { dataset: { tokenId: t.id } },
              h('th', { scope: 'row' }, t.name),
              h('td', {}, badge(t.role, t.role === 'admin' ? 'admin' : null)),
              h('td', {}, h('code', {}, `${t.displayPrefix}…`)),
              h('td', {}, t.createdBy),
              h('td', { title: formatDateTime(t.expiresAt) }, formatDateTime(t.expiresAt)),
              h(
                'td',
                { title: t.lastUsedAt ? formatDateTime(t.lastUsedAt) : '' },
                formatRelative(t.lastUsedAt),
              ),
              h('td', {}, badge(t.state, STATE_KIND[t.state])),
              h(
                'td',
                { class: 'actions' },
                canManage && t.state !== 'revoked'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'small danger-outline',
                        'aria-label': `Revoke token ${t.name}`,
                        onclick: (e) => revoke(t, e.currentTarget),
                      },
                      'Revoke',
                    )
                  : null,
              ),
            ),
          )
        : emptyRow(8, 'No tokens yet.'),
    );
  await reload();

  return h(
    'div',
    {},
    h(
      'p',
      { class: 'muted' },
      'Tokens for scripts and automation, each with a role and an expiry; send one as Authorization: Bearer gwa_…. Last use is updated at most once a minute. The environment’s CONSOLE_ADMIN_TOKEN is for bootstrap only.',
    ),
    canManage
      ? h(
          'div',
          { class: 'toolbar' },
          h(
            'button',
            { type: 'button', class: 'primary', onclick: () => openCreateDialog(reload) },
            'Create token',
          ),
        )
      : null,
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'tokens-table' },
        h('caption', { class: 'visually-hidden' }, 'Admin tokens'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Role', 'Token', 'Created by', 'Expires', 'Last used', 'State'].map((c) =>
              h('th', { scope: 'col' }, c),
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
