// "Create API key": the form, then the new secret, shown once. The secret lives only in this
// dialog's DOM and closes with it; it is never stored, so a reload cannot bring it back.
import { api } from '../api.js';
import { busy, copyText, errorBox, field, h, openDialog } from '../dom.js';
import { snippetTabs } from './connect.js';

const EXPIRY_CHOICES = [
  ['', 'Never'],
  ['7', 'In 7 days'],
  ['30', 'In 30 days'],
  ['90', 'In 90 days'],
  ['365', 'In 1 year'],
  ['custom', 'On a date…'],
];

function expiryIso(choice, dateValue) {
  if (!choice) return undefined;
  if (choice === 'custom') return dateValue ? new Date(`${dateValue}T23:59:59`).toISOString() : undefined;
  return new Date(Date.now() + Number(choice) * 86_400_000).toISOString();
}

function revealBody(secret, key, groups) {
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: secret,
    class: 'secret',
    'aria-label': 'Your new API key',
    spellcheck: 'false',
    autocomplete: 'off',
    onfocus: (e) => e.target.select(),
  });
  const model = groups.find((g) => g.name === key.group)?.models[0];
  return [
    h(
      'div',
      { class: 'warning', role: 'alert' },
      h('strong', {}, 'Copy this key now. '),
      'It is shown only this once: the gateway stores a hash, not the key. If you lose it, revoke it and create another.',
    ),
    h(
      'div',
      { class: 'secret-row' },
      input,
      h('button', { type: 'button', class: 'primary', onclick: () => copyText(secret, input) }, 'Copy'),
    ),
    h('p', { class: 'muted' }, `Key “${key.name}” in group ${key.group}. Try it:`),
    snippetTabs(secret, model),
  ];
}

/**
 * Opens the dialog; `onCreated()` runs after a key was created (to refresh the table). A team key:
 * `endpoint` is the team's keys route, and `members` (team admins) the members it may be for.
 */
export function openCreateKeyDialog(groups, onCreated, { endpoint = '/api/keys', members = null } = {}) {
  const owner = members
    ? h(
        'select',
        { name: 'userId' },
        members.map((m) => h('option', { value: m.userId, selected: m.self }, m.email)),
      )
    : null;
  const name = h('input', {
    type: 'text',
    name: 'name',
    required: true,
    maxlength: '100',
    autocomplete: 'off',
  });
  const group = h(
    'select',
    { name: 'group', required: true },
    groups.map((g) => h('option', { value: g.name }, `${g.name} (${g.models.length} models)`)),
  );
  const modelsHint = h('p', { class: 'hint' });
  const showModels = () => {
    const g = groups.find((x) => x.name === group.value);
    modelsHint.textContent = g ? `Models: ${g.models.join(', ') || 'none'}` : '';
  };
  group.addEventListener('change', showModels);
  showModels();
  const expiry = h(
    'select',
    { name: 'expiry' },
    EXPIRY_CHOICES.map(([value, label]) => h('option', { value }, label)),
  );
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const expiryDate = h('input', {
    type: 'date',
    name: 'expiryDate',
    min: tomorrow,
    'aria-label': 'Expiry date',
  });
  const expiryDateField = h('div', { class: 'field', hidden: true }, expiryDate);
  expiry.addEventListener('change', () => {
    expiryDateField.hidden = expiry.value !== 'custom';
    expiryDate.required = expiry.value === 'custom';
  });
  const limit = h('input', {
    type: 'number',
    name: 'spendLimit',
    min: '0',
    step: 'any',
    inputmode: 'decimal',
    placeholder: 'No limit',
  });
  const error = errorBox();
  const submit = h('button', { type: 'submit', class: 'primary', form: 'create-key-form' }, 'Create key');
  const cancel = h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel');

  const form = h(
    'form',
    {
      id: 'create-key-form',
      onsubmit: async (event) => {
        event.preventDefault();
        error.clear();
        const body = { name: name.value.trim(), group: group.value };
        if (owner) body.userId = owner.value;
        const expiresAt = expiryIso(expiry.value, expiryDate.value);
        if (expiresAt) body.expiresAt = expiresAt;
        if (limit.value !== '') body.spendLimitCredits = Number(limit.value);
        await busy(submit, async () => {
          try {
            const created = await api.post(endpoint, body);
            onCreated();
            dialog
              .querySelector('.dialog-body')
              .replaceChildren(...revealBody(created.secret, created.key, groups));
            dialog.querySelector('h2').textContent = 'Your new API key';
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
    field('Name', name, 'Where the key is used, e.g. "billing-service prod".'),
    owner ? field('For member', owner, 'The key is theirs; it spends the team’s credits.') : null,
    h('div', { class: 'field' }, h('label', { for: 'key-group' }, 'Group'), group, modelsHint),
    h(
      'div',
      { class: 'grid-2' },
      field('Expires', expiry),
      field('Spend limit (credits)', limit, 'Optional.'),
    ),
    expiryDateField,
    error,
  );
  group.id = 'key-group';
  modelsHint.id = 'key-group-models';
  group.setAttribute('aria-describedby', modelsHint.id);
  const dialog = openDialog({ title: 'Create API key', body: form, actions: [cancel, submit], wide: true });
  name.focus();
}
