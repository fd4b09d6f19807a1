// Admin > Import/Export: the whole configuration as a gateway.yaml (the file's settings with the
// newest providers, models and groups; keys only as secret ids or env var names), and a YAML's
// providers, models and groups imported as a new version.
import { api } from '../api.js';
import { busy, confirmDialog, errorBox, field, h, toast } from '../dom.js';
import { configBar } from './config-common.js';
import { discardDraft, loadConfig } from './config-state.js';

/** What the console accepts in one request (console.body_limit_bytes, 64 KiB by default). */
const MAX_YAML_CHARS = 60_000;

export async function transferTab({ refresh }) {
  const st = await loadConfig();
  const exportPanel = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'export-title' },
    h('h2', { id: 'export-title' }, 'Export'),
    h(
      'p',
      { class: 'muted' },
      `Version ${st.view.version} as a whole gateway.yaml: the file's settings with the stored providers, models and groups. `,
      'Keys appear only as the ids of stored secrets or the names of environment variables.',
    ),
    h(
      'a',
      { class: 'button', href: '/api/admin/config/export', download: 'gateway.yaml' },
      'Download gateway.yaml',
    ),
  );
  if (!st.view.editable) return h('div', {}, configBar(st, refresh), exportPanel);

  const file = h('input', { type: 'file', accept: '.yaml,.yml,application/yaml,text/yaml' });
  const yaml = h('textarea', {
    rows: '14',
    spellcheck: 'false',
    maxlength: String(MAX_YAML_CHARS),
    required: true,
    class: 'code',
  });
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (chosen) yaml.value = await chosen.text();
  });
  const comment = h('input', { type: 'text', maxlength: '500' });
  const error = errorBox();
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Import as a new version');
  const form = h(
    'form',
    {
      id: 'import-form',
      onsubmit: async (e) => {
        e.preventDefault();
        error.clear();
        if (
          st.dirty &&
          !(await confirmDialog({
            title: 'Import over unsaved changes?',
            message: 'The import becomes the newest version; your unsaved changes are dropped.',
            confirmLabel: 'Import',
            danger: true,
          }))
        )
          return;
        await busy(submit, async () => {
          try {
            const body = { base_version: st.view.version, yaml: yaml.value };
            if (comment.value.trim()) body.comment = comment.value.trim();
            const saved = await api.post('/api/admin/config/import', body);
            discardDraft();
            const notes = [
              saved.ignored.length
                ? `kept the file's ${saved.ignored.join(', ')} (not stored in versions)`
                : null,
              ...saved.warnings,
            ].filter(Boolean);
            toast(`Imported as version ${saved.version}.${notes.length ? ` ${notes.join('; ')}.` : ''}`);
            refresh();
          } catch (err) {
            if (err.status === 409) {
              discardDraft(
                `Someone else saved the configuration after version ${st.view.version}: nothing was imported. Import again on the newest version.`,
              );
              return refresh();
            }
            error.show(err.message);
          }
        });
      },
    },
    field('YAML file', file, 'Or paste its content below. Only providers, models and groups are imported.'),
    field('gateway.yaml', yaml),
    field('Comment', comment, 'Optional, kept with the version.'),
    error,
    h('div', { class: 'toolbar start' }, submit),
  );
  return h(
    'div',
    {},
    configBar(st, refresh),
    exportPanel,
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'import-title' },
      h('h2', { id: 'import-title' }, 'Import'),
      h(
        'p',
        { class: 'muted' },
        `Saved as the version after ${st.view.version}, checked by the same schema as every change; the rest of the file (server settings) stays the file's.`,
      ),
      form,
    ),
  );
}
