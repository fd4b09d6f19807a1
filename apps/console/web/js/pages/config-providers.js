// Admin > Providers: the draft's providers with their live state (the router's route table), and
// add, edit, test, disable and remove. Keys show only as their hint, or the env var's name.
import { badge, busy, confirmDialog, emptyRow, h, replace } from '../dom.js';
import { formatDateTime, formatMs } from '../format.js';
import { changeBadge, configBar, liveProviders, testProvider } from './config-common.js';
import { servedIds } from './config-document.js';
import { changeOf, editDraft, loadConfig } from './config-state.js';
import { openProviderDialog } from './provider-dialog.js';
import { isRequired, loadProviderTypes, settingsOf, typeOf } from './provider-types.js';

const STATE_KIND = { up: 'ok', half_open: 'warn', down: 'error', disabled: 'muted' };

/**
 * How the provider authenticates, without its secret: the stored key's hint, or where it comes
 * from (`view`: its type as the console describes it, for the keyless credential's name).
 */
export function credentialOf(p, hints, view) {
  if (p.api_key_secret) return h('code', {}, hints[p.api_key_secret] ?? 'stored key');
  if (p.api_key_env) return h('span', {}, 'env ', h('code', {}, p.api_key_env));
  return h('span', { class: 'muted' }, view?.ambient?.short ?? 'no key');
}

/** Its type, and for a type translating by a profile, the profile its choice settings name. */
function typeLine(p, view) {
  if (!view?.profile) return p.type;
  const chosen = settingsOf(view)
    .filter(([name, schema]) => Array.isArray(schema.enum) && p[name] !== undefined)
    .map(([name]) => p[name]);
  return chosen.length ? `${p.type} (${chosen.join(', ')})` : p.type;
}

/**
 * Where it sends requests: its base URL, or for a type deriving it from required settings (a
 * region, a project), those settings and the URL only when one overrides them.
 */
function whereOf(p, view) {
  if (!view || view.baseUrlRequired) return h('code', { class: 'url' }, p.base_url ?? '');
  const placed = settingsOf(view)
    .filter(([name]) => isRequired(view, name))
    .map(([name, schema]) => `${schema.title ?? name} ${p[name] ?? '?'}`);
  return [placed.join(' · '), p.base_url ? h('div', {}, h('code', {}, p.base_url)) : null];
}

function modelsOf(p) {
  return h(
    'ul',
    { class: 'chips' },
    (p.models ?? []).map((m) =>
      h(
        'li',
        {},
        typeof m === 'string' || !m?.upstream || m.upstream === m.id
          ? h('code', {}, typeof m === 'string' ? m : m?.id)
          : h('code', { title: `upstream ${m.upstream}` }, `${m.id} → ${m.upstream}`),
      ),
    ),
  );
}

/** The live state: why the console cannot use it, else each of its models' route state. */
function liveStateOf(p, live) {
  if (changeOf('providers', p.id) === 'new') return h('span', { class: 'muted' }, 'not saved yet');
  const known = live.byId.get(p.id);
  if (known?.disabledReason)
    return [badge('disabled', 'muted'), h('div', { class: 'muted small' }, known.disabledReason)];
  const cands = Object.entries(live.routes?.models ?? {}).flatMap(([model, list]) =>
    list.filter((c) => c.providerId === p.id).map((c) => ({ model, ...c })),
  );
  if (cands.length === 0) return h('span', { class: 'muted' }, 'no route published');
  return h(
    'ul',
    { class: 'states' },
    cands.map((c) =>
      h(
        'li',
        { title: c.reason },
        badge(c.state.replace('_', '-'), STATE_KIND[c.state]),
        ' ',
        h('code', {}, c.model),
        c.latencyMs !== null && c.latencyMs !== undefined
          ? h('span', { class: 'muted' }, ` ${formatMs(c.latencyMs)}`)
          : null,
        c.state !== 'up' && c.reason ? h('span', { class: 'muted' }, ` — ${c.reason}`) : null,
      ),
    ),
  );
}

function providerRow(p, index, { st, live, types, refresh }) {
  const result = h('div', { class: 'row-test', role: 'status' });
  const actions = [];
  if (st.view.editable) {
    const test = h(
      'button',
      { type: 'button', class: 'small', 'aria-label': `Test provider ${p.id}` },
      'Test',
    );
    test.addEventListener('click', () => busy(test, async () => replace(result, await testProvider(p))));
    const toggle = h(
      'button',
      {
        type: 'button',
        class: 'small',
        'aria-label': `${p.enabled === false ? 'Enable' : 'Disable'} provider ${p.id}`,
      },
      p.enabled === false ? 'Enable' : 'Disable',
    );
    toggle.addEventListener('click', () => {
      editDraft((d) => {
        const next = { ...d.providers[index] };
        if (next.enabled === false) delete next.enabled;
        else next.enabled = false;
        d.providers[index] = next;
      });
      refresh();
    });
    const remove = h(
      'button',
      { type: 'button', class: 'small danger-outline', 'aria-label': `Remove provider ${p.id}` },
      'Remove',
    );
    remove.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Remove provider ${p.id}?`,
        message: `Its models are no longer routed to it once saved: ${servedIds(p).join(', ') || 'none'}.`,
        confirmLabel: 'Remove provider',
        danger: true,
      });
      if (!ok) return;
      editDraft((d) => d.providers.splice(index, 1));
      refresh();
    });
    const edit = h(
      'button',
      {
        type: 'button',
        class: 'small',
        'aria-label': `Edit provider ${p.id}`,
        onclick: () => openProviderDialog({ original: p, index, st, types, onDone: refresh }),
      },
      'Edit',
    );
    actions.push(test, edit, toggle, remove);
  }
  return h(
    'tr',
    { dataset: { providerId: p.id } },
    h(
      'th',
      { scope: 'row' },
      p.id,
      changeBadge(changeOf('providers', p.id)),
      p.enabled === false ? badge('disabled', 'muted') : null,
      h('div', { class: 'muted small' }, typeLine(p, typeOf(types, p.type))),
    ),
    h('td', { class: 'wrap' }, whereOf(p, typeOf(types, p.type))),
    h('td', {}, modelsOf(p)),
    h('td', { class: 'num' }, `${p.priority ?? 0} / ${p.weight ?? 1}`),
    h('td', {}, credentialOf(p, st.hints, typeOf(types, p.type))),
    h('td', { class: 'wrap' }, liveStateOf(p, live)),
    h('td', { class: 'actions' }, actions, result),
  );
}

export async function providersTab({ refresh }) {
  const [st, live, types] = await Promise.all([loadConfig(), liveProviders(), loadProviderTypes()]);
  const rows = st.draft.providers.map((p, i) => providerRow(p, i, { st, live, types, refresh }));
  const add = st.view.editable
    ? h(
        'div',
        { class: 'toolbar' },
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onclick: () =>
              openProviderDialog({
                original: null,
                index: st.draft.providers.length,
                st,
                types,
                onDone: refresh,
              }),
          },
          'Add provider',
        ),
      )
    : null;
  return h(
    'div',
    {},
    configBar(st, refresh),
    live.routerError
      ? h(
          'p',
          { class: 'notice error' },
          `The router could not be reached: ${live.routerError}. Live states are not shown.`,
        )
      : h(
          'p',
          { class: 'muted' },
          live.routes
            ? `Live states from route table v${live.routes.version}, generated ${formatDateTime(live.routes.generatedAt)}.`
            : 'The router has not published routes yet.',
        ),
    add,
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'providers-table' },
        h('caption', { class: 'visually-hidden' }, 'Providers, their settings and live state'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Provider', 'Base URL', 'Models', 'Priority / weight', 'Key', 'Live state'].map((c) =>
              h('th', { scope: 'col', class: c.startsWith('Priority') ? 'num' : null }, c),
            ),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        h('tbody', {}, rows.length ? rows : emptyRow(7, 'No providers yet.')),
      ),
    ),
  );
}
