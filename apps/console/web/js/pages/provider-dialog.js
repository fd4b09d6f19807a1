// Add or edit a provider of the draft: its type's settings, its key (typed once, stored sealed by
// the console and shown afterwards only as its hint, or an env var named instead), and a test of
// the entered settings before they are kept.
import { api } from '../api.js';
import { busy, h, replace } from '../dom.js';
import { checkDocumentEntry, editDialog, requireNoIssues, testProvider } from './config-common.js';
import { draftWith, editDraft, rememberHint } from './config-state.js';
import { providerForm } from './provider-form.js';

/**
 * Opens the dialog for the entry at `index` of the draft (`original` null: a new one at the end).
 * Keeping it checks it with the one schema first, then stores a typed key, then changes the draft.
 * `types`: the provider types the console describes (provider-types.js).
 */
export function openProviderDialog({ original, index, st, types, onDone }) {
  const form = providerForm(original, st, types);
  const result = h('div', { class: 'test-line', role: 'status', id: 'provider-test-result' });
  // In the footer, beside the buttons that keep the entry: the test is the step before keeping it.
  const test = h('button', { type: 'button' }, 'Test');
  test.addEventListener('click', () =>
    busy(test, async () => {
      replace(result, h('span', { class: 'muted' }, 'Testing…'));
      replace(result, await testProvider(form.entry(), form.typedKey()));
    }),
  );
  editDialog({
    title: original ? `Edit provider ${original.id}` : 'Add provider',
    fields: form.fields,
    extraActions: [test, result],
    submitLabel: original ? 'Keep changes' : 'Add provider',
    submit: async () => {
      const entry = form.entry();
      requireNoIssues(await checkDocumentEntry(draftWith('providers', index, entry), `providers[${index}]`));
      const key = form.typedKey();
      if (key) {
        // Bound to this provider at this address: no app sends it anywhere else.
        const stored = await api.post('/api/admin/config/secrets', { value: key, provider: entry });
        entry.api_key_secret = stored.id;
        rememberHint(stored.id, stored.hint);
      }
      editDraft((d) => {
        d.providers[index] = entry;
      });
      onDone();
    },
  });
}
