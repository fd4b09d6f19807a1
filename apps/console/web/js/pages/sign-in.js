import { api } from '../api.js';
import { busy, errorBox, field, h } from '../dom.js';
import { navigate } from '../router.js';
import { loadSession, setSession } from '../session.js';
import { publicCard, safeNext } from './common.js';

function signInMessage(err) {
  if (err.status === 401) return 'The email or password is not right, or the account is disabled.';
  if (err.status === 429)
    return `Too many failed attempts. Try again in ${err.retryAfter ? `${err.retryAfter} seconds` : 'a while'}.`;
  return err.message;
}

export async function signInPage({ query }) {
  const next = safeNext(query);
  // Already signed in (e.g. a second tab): go straight on.
  if (await loadSession()) {
    queueMicrotask(() => navigate(next, { replace: true }));
    return publicCard('Signing in…');
  }
  const [setup, methods] = await Promise.all([
    api.get('/api/setup/status').catch(() => ({ needed: false })),
    // An older console has no methods route: it offers passwords only.
    api.get('/api/auth/methods').catch(() => ({ password: true, sso: null })),
  ]);
  const sso = methods.sso
    ? h(
        'a',
        {
          class: 'button primary block',
          href: `${methods.sso.startUrl}?next=${encodeURIComponent(next)}`,
        },
        `Sign in with ${methods.sso.name}`,
      )
    : null;
  if (!methods.password)
    return publicCard('Sign in', sso ?? h('p', {}, 'No sign-in method is enabled on this console.'));

  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const error = errorBox();
  // With single sign-on offered, its button is the primary one.
  const submit = h('button', { type: 'submit', class: sso ? 'block' : 'primary block' }, 'Sign in');
  const form = h(
    'form',
    {
      novalidate: false,
      onsubmit: async (event) => {
        event.preventDefault();
        error.clear();
        await busy(submit, async () => {
          try {
            setSession(
              await api.post(
                '/api/auth/sign-in',
                { email: email.value.trim(), password: password.value },
                { quiet401: true },
              ),
            );
            navigate(next, { replace: true });
          } catch (err) {
            error.show(signInMessage(err));
            password.value = '';
            password.focus();
          }
        });
      },
    },
    field('Email', email),
    field('Password', password),
    error,
    submit,
  );
  if (!sso) queueMicrotask(() => email.focus());
  return publicCard(
    'Sign in',
    setup.needed
      ? h(
          'div',
          { class: 'notice' },
          h('strong', {}, 'First run: '),
          'no administrator exists yet. Open the one-time setup link the console printed when it started (',
          h('code', {}, '/setup?token=…'),
          ').',
        )
      : null,
    sso,
    sso ? h('p', { class: 'subtitle' }, 'or with your email and password:') : null,
    form,
  );
}
