// Budgets of a key (its owner) or of a user (admins): what each window holds, what is left, when it
// resets; add and remove. `base` is `/api/keys/<id>/budgets` or `/api/admin/users/<id>/budgets`.
import { api } from '../api.js';
import { busy, emptyRow, errorBox, field, h, openDialog, replace, toast } from '../dom.js';
import { formatCredits, formatDateTime } from '../format.js';
import { pagedList } from './paging.js';

const PERIODS = { day: 'Daily', week: 'Weekly (ISO, from Monday)', month: 'Monthly', lifetime: 'Lifetime' };
const ROLLING = { day: 'Rolling 24 hours', week: 'Rolling 7 days', month: 'Rolling 30 days' };

function describe(b) {
  const period = b.window === 'rolling' ? ROLLING[b.period] : PERIODS[b.period];
  const models = b.modelGroup ? `group ${b.modelGroup}` : b.models ? b.models.join(', ') : 'all models';
  return `${period} · ${models}`;
}

function resets(b) {
  if (b.resetsAt === null) return b.period === 'lifetime' ? 'never' : '—';
  return `${b.window === 'rolling' ? 'frees from' : 'resets'} ${formatDateTime(b.resetsAt)} (${b.resetsAt.slice(0, 16)}Z)`;
}

function budgetRow(b, onRemove) {
  return h(
    'tr',
    { dataset: { budgetId: b.id } },
    h('th', { scope: 'row' }, describe(b)),
    h('td', { class: 'num' }, formatCredits(b.limitCredits)),
    h('td', { class: 'num' }, formatCredits(b.spentCredits)),
    h('td', { class: 'num' }, formatCredits(b.leftCredits)),
    h('td', {}, resets(b)),
    h(
      'td',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'small danger-outline', onclick: (e) => onRemove(b, e.currentTarget) },
        'Remove',
      ),
    ),
  );
}

function budgetForm(groups, onCreate) {
  const period = h(
    'select',
    { name: 'period' },
    Object.entries(PERIODS).map(([v, t]) => h('option', { value: v }, t)),
  );
  const windowKind = h(
    'select',
    { name: 'window' },
    h('option', { value: 'calendar_utc' }, 'Calendar (UTC)'),
    h('option', { value: 'rolling' }, 'Rolling'),
  );
  const limit = h('input', {
    type: 'number',
    name: 'limitCredits',
    min: '0.000000001',
    step: 'any',
    required: true,
  });
  const group = h(
    'select',
    { name: 'modelGroup' },
    h('option', { value: '' }, 'All models'),
    groups.map((g) => h('option', { value: g.name }, `Models of group ${g.name}`)),
  );
  const error = errorBox();
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add budget');
  return h(
    'form',
    {
      class: 'budget-form',
      onsubmit: async (e) => {
        e.preventDefault();
        error.clear();
        await busy(add, async () => {
          try {
            await onCreate({
              period: period.value,
              window: windowKind.value,
              limitCredits: Number(limit.value),
              modelGroup: group.value || null,
            });
            limit.value = '';
          } catch (err) {
            error.show(err.message);
          }
        });
      },
    },
    field('Period', period),
    field(
      'Window',
      windowKind,
      'Calendar windows reset at 00:00 UTC; rolling ones count the last 24 slices of the period.',
    ),
    field('Limit (credits)', limit),
    field('Counts', group),
    error,
    add,
  );
}

/** Opens the budgets dialog; `title` names the key or user. */
export async function openBudgetsDialog({ title, base, groups }) {
  const tbody = h('tbody');
  // Oldest first, a page at a time (an owner has few; "Load more" when it has many).
  const list = pagedList({
    path: base,
    key: 'budgets',
    render: (budgets) =>
      replace(
        tbody,
        budgets.length
          ? budgets.map((b) => budgetRow(b, remove))
          : [emptyRow(6, 'No budget: only the balance limits spending.')],
      ),
  });
  const reload = () => list.reload();
  const remove = async (b, button) =>
    busy(button, async () => {
      try {
        await api.del(`${base}/${encodeURIComponent(b.id)}`);
        toast('Budget removed.');
      } catch (err) {
        toast(err.message);
      }
      await reload();
    });
  const create = async (body) => {
    await api.post(base, body);
    toast('Budget added.');
    await reload();
  };
  await reload();
  const table = h(
    'table',
    { class: 'data', id: 'budgets-table' },
    h('caption', { class: 'visually-hidden' }, 'Budgets'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Budget', 'Limit', 'Spent', 'Left', 'Resets'].map((t, i) =>
          h('th', { scope: 'col', class: i >= 1 && i <= 3 ? 'num' : null }, t),
        ),
        h('th', { scope: 'col' }),
      ),
    ),
    tbody,
  );
  const dialog = openDialog({
    title,
    wide: true,
    body: [table, list.footer, budgetForm(groups, create)],
    actions: [h('button', { type: 'button', onclick: () => dialog.close() }, 'Close')],
  });
}
