import { api } from '../api.js';
import { badge, busy, confirmDialog, emptyRow, h, replace, toast } from '../dom.js';
import { formatCredits, formatDateTime, formatRelative } from '../format.js';
import { connectPanel } from './connect.js';
import { openBudgetsDialog } from './budgets-dialog.js';
import { openCreateKeyDialog } from './key-dialog.js';
import { invalidationNote, pageHeader } from './common.js';
import { pagedList, searchBox } from './paging.js';

const STATUS_KIND = { active: 'ok', revoked: 'muted', expired: 'warn' };

function spend(key) {
  const spent = formatCredits(key.spentCredits);
  return key.spendLimitCredits === null || key.spendLimitCredits === undefined
    ? spent
    : `${spent} / ${formatCredits(key.spendLimitCredits)}`;
}

function keyRow(key, onRevoke, groups) {
  const budgets = h(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Budgets of key ${key.name}`,
      onclick: () =>
        void openBudgetsDialog({
          title: `Budgets of “${key.name}”`,
          base: `/api/keys/${encodeURIComponent(key.id)}/budgets`,
          groups,
        }),
    },
    'Budgets',
  );
  const revoke =
    key.status === 'active'
      ? h(
          'button',
          {
            type: 'button',
            class: 'small danger-outline',
            'aria-label': `Revoke key ${key.name}`,
            onclick: (event) => onRevoke(key, event.currentTarget),
          },
          'Revoke',
        )
      : null;
  return h(
    'tr',
    { dataset: { keyId: key.id } },
    h('th', { scope: 'row' }, key.name),
    h('td', {}, h('code', {}, key.displayPrefix)),
    h('td', {}, key.group),
    h('td', { title: formatDateTime(key.createdAt) }, formatRelative(key.createdAt)),
    h('td', { title: key.lastUsedAt ? formatDateTime(key.lastUsedAt) : '' }, formatRelative(key.lastUsedAt)),
    h('td', {}, key.expiresAt ? formatDateTime(key.expiresAt) : 'never'),
    h('td', {}, badge(key.status, STATUS_KIND[key.status])),
    h('td', { class: 'num' }, spend(key)),
    h('td', { class: 'actions' }, budgets, revoke),
  );
}

export async function keysPage() {
  const { groups } = await api.get('/api/groups');
  const tbody = h('tbody');
  // Newest first, a page at a time; the search (name or key prefix) is the server's.
  let search = '';
  const list = pagedList({
    path: '/api/keys',
    key: 'keys',
    params: () => ({ q: search || undefined }),
    render: (keys) => replace(tbody, rows(keys)),
  });
  const reload = () => list.reload();
  const onRevoke = async (key, button) => {
    const ok = await confirmDialog({
      title: `Revoke “${key.name}”?`,
      message:
        'Applications using this key are refused (401 invalid_api_key) from now on. This cannot be undone.',
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!ok) return;
    await busy(button, async () => {
      try {
        const { invalidation } = await api.post(`/api/keys/${encodeURIComponent(key.id)}/revoke`);
        toast(`Key “${key.name}” revoked.${invalidationNote(invalidation)}`);
      } catch (err) {
        toast(err.message);
      }
      await reload();
    });
  };
  const rows = (list) =>
    list.length
      ? list.map((k) => keyRow(k, onRevoke, groups))
      : [emptyRow(9, search ? 'No keys match.' : 'No keys yet. Create one to call the gateway.')];
  await reload();

  const create = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      disabled: groups.length === 0,
      onclick: () => openCreateKeyDialog(groups, () => void reload()),
    },
    'Create API key',
  );
  return [
    pageHeader(
      'API keys',
      'Keys authenticate your applications. Each belongs to a group, which sets its models.',
      create,
    ),
    groups.length === 0
      ? h('p', { class: 'notice' }, 'Your account has no group yet; an administrator must give you one.')
      : null,
    h(
      'div',
      { class: 'toolbar' },
      searchBox({
        label: 'Search keys',
        placeholder: 'Name or key prefix starts with…',
        onSearch: (q) => {
          search = q;
          return reload();
        },
      }),
    ),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'keys-table' },
        h('caption', { class: 'visually-hidden' }, 'Your API keys'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Key', 'Group', 'Created', 'Last used', 'Expires', 'Status', 'Spend (credits)'].map(
              (t) => h('th', { scope: 'col', class: t.startsWith('Spend') ? 'num' : null }, t),
            ),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        tbody,
      ),
      list.footer,
    ),
    connectPanel(),
  ];
}
