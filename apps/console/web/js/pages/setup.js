import { api } from '../api.js';
import { busy, errorBox, field, h } from '../dom.js';
import { navigate } from '../router.js';
import { setSession } from '../session.js';
import { publicCard } from './common.js';

export async function setupPage({ query }) {
  const token = query.get('token') ?? '';
  const status = await api.get('/api/setup/status');
  if (!status.needed)
    return publicCard(
      'Setup is complete',
      h('p', {}, 'An administrator already exists. '),
      h('a', { class: 'button primary block', href: '/sign-in' }, 'Go to sign in'),
    );
  if (!token)
    return publicCard(
      'Create the first administrator',
      h('p', {}, 'Open the one-time setup link the console printed at startup; it carries the setup token.'),
    );

  const email = h('input', { type: 'email', autocomplete: 'username', required: true, maxlength: '254' });
  const password = h('input', {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
    minlength: '12',
    maxlength: '200',
  });
  const repeat = h('input', { type: 'password', autocomplete: 'new-password', required: true });
  const error = errorBox();
  const submit = h('button', { type: 'submit', class: 'primary block' }, 'Create administrator');
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        error.clear();
        if (password.value !== repeat.value) return error.show('The two passwords differ.');
        await busy(submit, async () => {
          try {
            setSession(
              await api.post('/api/setup', { token, email: email.value.trim(), password: password.value }),
            );
            // Drop the token from the address bar and history.
            navigate('/keys', { replace: true });
          } catch (err) {
            error.show(err.status === 403 ? 'This setup link is invalid or was already used.' : err.message);
          }
        });
      },
    },
    field('Email', email),
    field('Password', password, 'At least 12 characters.'),
    field('Repeat password', repeat),
    error,
    submit,
  );
  return publicCard(
    'Create the first administrator',
    h('p', { class: 'subtitle' }, 'This account manages users, groups and credits. The link works once.'),
    form,
  );
}
