// How to point an SDK at the gateway: the base addresses and copyable snippets, as the console
// serves them (GET /api/client-setup): which SDK takes which address is not this code's to know.
import { api } from '../api.js';
import { copyText, h, replace } from '../dom.js';
import { gatewayUrl } from '../session.js';

let loading = null;

/** The addresses and sample templates, fetched once a page load (a failed fetch is tried again). */
function loadClientSetup() {
  loading ??= api.get('/api/client-setup').catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}

/**
 * A sample with the gateway's address, the model and the key written in. With `key` null it reads
 * the key from GATEWAY_API_KEY. Replaced by functions, so a `$` in a value is not a pattern.
 */
export function filled(snippet, key, model) {
  const style = snippet.keyStyle;
  const keyText = key ? style.literal.replaceAll('{{value}}', () => key) : style.env;
  const code = snippet.code
    .replaceAll('{{base}}', () => gatewayUrl())
    .replaceAll('{{model}}', () => model ?? 'MODEL_ID')
    .replaceAll('{{key}}', () => keyText);
  return (key ? '' : style.envPreamble) + code;
}

/** `el` filled by `render(setup)` once the setup is loaded, or saying why it is not. */
function whenLoaded(el, render) {
  loadClientSetup().then(
    (setup) => replace(el, render(setup)),
    (err) => replace(el, h('p', { class: 'muted' }, `The samples could not be loaded: ${err.message}`)),
  );
  return el;
}

function copyButton(text, label = 'Copy') {
  return h('button', { type: 'button', class: 'small', onclick: () => copyText(text) }, label);
}

/** Snippet tabs (ARIA tabs: arrow keys move between them). */
let tabsSeq = 0;
function tabsOf(snippets, key, model) {
  const list = snippets.map((snippet) => ({ ...snippet, code: filled(snippet, key, model) }));
  const prefix = `snip${++tabsSeq}`;
  const tabs = h('div', { role: 'tablist', class: 'tabs', 'aria-label': 'Code sample language' });
  const panel = h('div', { class: 'snippet', role: 'tabpanel' });
  const select = (i) => {
    const item = list[i];
    for (const [j, tab] of [...tabs.children].entries()) {
      tab.setAttribute('aria-selected', String(i === j));
      tab.tabIndex = i === j ? 0 : -1;
    }
    panel.setAttribute('aria-labelledby', `${prefix}-${item.id}`);
    panel.replaceChildren(h('pre', {}, h('code', {}, item.code)), copyButton(item.code, 'Copy code'));
  };
  list.forEach((item, i) =>
    tabs.append(
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `${prefix}-${item.id}`,
          onclick: () => select(i),
          onkeydown: (event) => {
            const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
            if (!step) return;
            const next = (i + step + list.length) % list.length;
            select(next);
            tabs.children[next].focus();
          },
        },
        item.label,
      ),
    ),
  );
  if (list.length) select(0);
  return [tabs, panel];
}

export function snippetTabs(key, model) {
  return whenLoaded(h('div', { class: 'snippet-tabs' }), ({ snippets }) => tabsOf(snippets, key, model));
}

function addressRow({ label, path, hint }) {
  const value = `${gatewayUrl()}${path}`;
  return h(
    'div',
    { class: 'base-url' },
    h('div', {}, h('span', { class: 'label' }, label), h('span', { class: 'hint' }, hint)),
    h('code', { class: 'copyable' }, value),
    copyButton(value),
  );
}

export function baseUrls() {
  return whenLoaded(h('div', { class: 'base-urls' }), ({ addresses }) => addresses.map(addressRow));
}

export function connectPanel() {
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'connect-title' },
    h('h2', { id: 'connect-title' }, 'Connect your application'),
    h(
      'p',
      { class: 'muted' },
      'Keep your SDK and code; change only the base address and the key. No trailing slash.',
    ),
    baseUrls(),
    snippetTabs(null),
  );
}
