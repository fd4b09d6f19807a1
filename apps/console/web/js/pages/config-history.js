// Admin > History: every version of the configuration (who, when, from where, why), one version
// whole, and putting an older version back as the newest.
import { api } from '../api.js';
import { busy, confirmDialog, emptyRow, errorBox, h, replace, toast } from '../dom.js';
import { formatDateTime } from '../format.js';
import { pageHeader } from './common.js';
import { sourceBadge } from './config-common.js';
import { discardDraft, loadConfig, saveDocument } from './config-state.js';
import { groupModels } from './config-document.js';
import { pagedList } from './paging.js';

export async function historyTab() {
  const st = await loadConfig();
  const tbody = h('tbody');
  // Newest first, 100 at a time ("Load more": the older ones).
  const list = pagedList({
    path: '/api/admin/config/versions',
    key: 'versions',
    limit: 100,
    render: (versions) =>
      replace(tbody, ...(versions.length ? versions.map(row) : [emptyRow(5, 'No versions stored.')])),
  });
  const row = (v) =>
    h(
      'tr',
      { dataset: { version: v.version } },
      h(
        'th',
        { scope: 'row' },
        h('a', { href: `/admin/config/versions/${v.version}` }, `v${v.version}`),
        v.version === st.view.version ? h('span', { class: 'badge ok' }, 'current') : null,
      ),
      h('td', {}, formatDateTime(v.created_at)),
      h('td', {}, v.author),
      h('td', {}, sourceBadge(v.source)),
      h('td', { class: 'wrap' }, v.comment ?? h('span', { class: 'muted' }, '—')),
    );
  await list.reload();
  return h(
    'div',
    {},
    st.view.editable
      ? null
      : h(
          'p',
          { class: 'notice' },
          'The configuration is managed in its file (config.source: file): it has no versions here.',
        ),
    h(
      'section',
      { class: 'panel flush' },
      h(
        'table',
        { class: 'data', id: 'versions-table' },
        h('caption', { class: 'visually-hidden' }, 'Configuration versions, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Version', 'Saved', 'By', 'Source', 'Comment'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        tbody,
      ),
      list.footer,
    ),
  );
}

function summary(document) {
  const providers = document.providers ?? [];
  const models = document.models ?? [];
  const groups = Object.entries(document.groups ?? {});
  return h(
    'dl',
    { class: 'details' },
    h('dt', {}, 'Providers'),
    h(
      'dd',
      {},
      providers.map((p) => `${p.id} (${p.type}${p.enabled === false ? ', disabled' : ''})`).join(', ') || '—',
    ),
    h('dt', {}, 'Models'),
    h('dd', {}, models.map((m) => m.id).join(', ') || '—'),
    h('dt', {}, 'Groups'),
    h(
      'dd',
      {},
      groups.map(([n, g]) => `${n}: ${groupModels(g).join(', ') || 'no model'}`).join(' · ') || '—',
    ),
  );
}

/** One version: its facts, a summary and the whole document (keys only as secret ids). */
export async function versionPage({ params, refresh }) {
  const n = Number(params.version);
  const [v, st] = await Promise.all([
    api.get(`/api/admin/config/versions/${encodeURIComponent(n)}`),
    loadConfig(),
  ]);
  const error = errorBox();
  const restore = h('button', { type: 'button' }, `Make v${v.version} the newest`);
  restore.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: `Restore version ${v.version}?`,
      message: st.dirty
        ? `It is saved as a new version after v${st.view.version}; your unsaved changes are dropped.`
        : `It is saved as a new version after v${st.view.version}.`,
      confirmLabel: 'Restore',
    });
    if (!ok) return;
    await busy(restore, async () => {
      error.clear();
      try {
        const saved = await saveDocument(v.document, `restore version ${v.version}`);
        if (saved === null) return;
        discardDraft();
        toast(`Version ${v.version} restored as version ${saved.version}.`);
        refresh();
      } catch (err) {
        if (err.status === 409) discardDraft();
        error.show(
          err.status === 409 ? `${err.message} Reload to restore on the newest version.` : err.message,
        );
      }
    });
  });
  const canRestore = st.view.editable && v.version !== st.view.version;
  return [
    pageHeader(
      `Configuration version ${v.version}`,
      `Saved ${formatDateTime(v.created_at)} by ${v.author}${v.comment ? ` — “${v.comment}”` : ''}`,
      h('a', { class: 'button', href: '/admin?tab=history' }, 'All versions'),
      canRestore ? restore : null,
    ),
    error,
    h(
      'section',
      { class: 'panel', id: 'version-detail' },
      h('p', {}, 'Source: ', sourceBadge(v.source)),
      summary(v.document),
    ),
    h(
      'section',
      { class: 'panel' },
      h('h2', {}, 'Document'),
      h('pre', { class: 'document', id: 'version-document' }, JSON.stringify(v.document, null, 2)),
    ),
  ];
}
