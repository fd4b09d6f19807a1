// Entry point: routes, the signed-in shell (header and navigation) and page mounting.
import { setUnauthenticatedHandler } from './api.js';
import { h, replace } from './dom.js';
import { adminPage } from './pages/admin.js';
import { versionPage } from './pages/config-history.js';
import { keysPage } from './pages/keys.js';
import { logDetailPage } from './pages/log-detail.js';
import { logsPage } from './pages/logs.js';
import { setupPage } from './pages/setup.js';
import { signInPage } from './pages/sign-in.js';
import { teamsPage } from './pages/teams.js';
import { usagePage } from './pages/usage.js';
import { currentQuery, match, navigate, route, start } from './router.js';
import { getSession, loadSession, setSession, signOut } from './session.js';

const PUBLIC = { auth: false };
const USER = { auth: true };
/** The admin pages: every role but member (each sees its own tabs). */
const ADMIN = { auth: true, admin: true };
const isStaff = (session) => session.user.role !== 'member';

route('/sign-in', { ...PUBLIC, page: signInPage });
route('/setup', { ...PUBLIC, page: setupPage });
route('/', { ...USER, redirect: '/keys' });
route('/keys', { ...USER, nav: 'keys', page: keysPage });
route('/usage', { ...USER, nav: 'usage', page: usagePage });
route('/logs', { ...USER, nav: 'logs', page: logsPage });
route('/logs/:id', { ...USER, nav: 'logs', page: logDetailPage });
route('/teams', { ...USER, nav: 'teams', page: teamsPage });
route('/admin', { ...ADMIN, nav: 'admin', page: adminPage });
route('/admin/config/versions/:version', { ...ADMIN, nav: 'admin', page: versionPage });
route('/admin/logs/:id', { ...ADMIN, nav: 'admin', page: (ctx) => logDetailPage({ ...ctx, admin: true }) });

const root = document.getElementById('app');
let renderSeq = 0;

/**
 * While the next page loads, the one on screen stays but takes no input: a click on its controls
 * would act on what is being replaced (clicking the current page's own link re-renders it, and a
 * revoke pressed on the old table left the new one showing the key active).
 */
function setBusy(busy) {
  root.inert = busy;
  if (busy) root.setAttribute('aria-busy', 'true');
  else root.removeAttribute('aria-busy');
}

function shell(session, active, content) {
  const link = (key, href, label) =>
    h('a', { href, class: 'nav-link', 'aria-current': key === active ? 'page' : null }, label);
  const role = session.user.role;
  return [
    h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'topbar' },
      h(
        'a',
        { class: 'brand', href: '/keys' },
        h('span', { class: 'brand-mark', 'aria-hidden': 'true' }),
        'Model gateway',
      ),
      h(
        'nav',
        { 'aria-label': 'Console' },
        link('keys', '/keys', 'API keys'),
        link('usage', '/usage', 'Usage'),
        link('logs', '/logs', 'Logs'),
        link('teams', '/teams', 'Teams'),
        isStaff(session) ? link('admin', '/admin', 'Admin') : null,
      ),
      h(
        'div',
        { class: 'user-menu' },
        h('span', { class: 'user-email', title: session.user.email }, session.user.email),
        role !== 'member'
          ? h('span', { class: `badge ${role === 'admin' ? 'admin' : ''}`.trim() }, role)
          : null,
        h(
          'button',
          {
            type: 'button',
            class: 'ghost',
            onclick: async () => {
              await signOut().catch(() => {});
              navigate('/sign-in', { replace: true });
            },
          },
          'Sign out',
        ),
      ),
    ),
    h('main', { id: 'main', tabindex: '-1' }, content),
  ];
}

function errorPanel(err) {
  return h(
    'section',
    { class: 'panel error-panel', role: 'alert' },
    h('h1', { tabindex: '-1' }, 'Something went wrong'),
    h('p', {}, err?.message ?? String(err)),
    h('button', { type: 'button', onclick: () => render() }, 'Retry'),
  );
}

async function render() {
  const seq = ++renderSeq;
  const path = location.pathname;
  const found = match(path);
  if (!found) return navigate('/keys', { replace: true });
  const { handler, params } = found;
  if (handler.redirect) return navigate(handler.redirect, { replace: true });

  let session = getSession();
  if (handler.auth && !session) {
    try {
      session = await loadSession();
    } catch (err) {
      return replace(root, errorPanel(err));
    }
    if (seq !== renderSeq) return;
    if (!session)
      return navigate(`/sign-in?next=${encodeURIComponent(path + location.search)}`, { replace: true });
  }
  if (handler.admin && !isStaff(session)) return navigate('/keys', { replace: true });

  const ctx = { session, params, query: currentQuery(), refresh: () => render() };
  let content;
  setBusy(true);
  try {
    content = await handler.page(ctx);
  } catch (err) {
    if (err?.status === 401) return; // the API client is already on its way to sign-in
    content = errorPanel(err);
  }
  if (seq !== renderSeq) return; // a newer navigation finished first
  replace(root, handler.auth ? shell(session, handler.nav, content) : content);
  setBusy(false);
  const heading = root.querySelector('h1');
  document.title = `${heading?.textContent ?? 'Console'} · Model gateway`;
  if (seq > 1) heading?.focus({ preventScroll: false });
}

setUnauthenticatedHandler(() => {
  setSession(null);
  if (location.pathname === '/sign-in' || location.pathname === '/setup') return;
  navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
});

start(render);
