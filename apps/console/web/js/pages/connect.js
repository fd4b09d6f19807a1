// How to point an SDK at the gateway: the two base addresses and copyable snippets.
import { copyText, h } from '../dom.js';
import { gatewayUrl } from '../session.js';

/** With `key` null the samples read it from the GATEWAY_API_KEY environment variable. */
export function snippets(key, model) {
  const base = gatewayUrl();
  const m = model ?? 'MODEL_ID';
  const py = key ? `"${key}"` : 'os.environ["GATEWAY_API_KEY"]';
  const js = key ? `'${key}'` : 'process.env.GATEWAY_API_KEY';
  const sh = key ?? '$GATEWAY_API_KEY';
  const pyImport = key ? '' : 'import os\n';
  return [
    {
      id: 'python',
      label: 'Python',
      code: `${pyImport}from openai import OpenAI

client = OpenAI(base_url="${base}/v1", api_key=${py})
reply = client.chat.completions.create(
    model="${m}",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(reply.choices[0].message.content)`,
    },
    {
      id: 'node',
      label: 'Node.js',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${base}/v1', apiKey: ${js} });
const reply = await client.chat.completions.create({
  model: '${m}',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${base}/v1/chat/completions \\
  -H "Authorization: Bearer ${sh}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${m}", "messages": [{"role": "user", "content": "Hello!"}]}'`,
    },
    {
      id: 'anthropic',
      label: 'Anthropic SDK',
      code: `${pyImport}from anthropic import Anthropic

# The messages format uses the root address, without /v1.
client = Anthropic(base_url="${base}", api_key=${py})
reply = client.messages.create(
    model="${m}", max_tokens=256,
    messages=[{"role": "user", "content": "Hello!"}],
)`,
    },
  ];
}

function copyButton(text, label = 'Copy') {
  return h('button', { type: 'button', class: 'small', onclick: () => copyText(text) }, label);
}

/** Snippet tabs (ARIA tabs: arrow keys move between them). */
let tabsSeq = 0;
export function snippetTabs(key, model) {
  const list = snippets(key, model);
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
  select(0);
  return h('div', { class: 'snippet-tabs' }, tabs, panel);
}

export function baseUrls() {
  const base = gatewayUrl();
  const row = (label, value, hint) =>
    h(
      'div',
      { class: 'base-url' },
      h('div', {}, h('span', { class: 'label' }, label), h('span', { class: 'hint' }, hint)),
      h('code', { class: 'copyable' }, value),
      copyButton(value),
    );
  return h(
    'div',
    { class: 'base-urls' },
    row(
      'OpenAI SDKs and tools',
      `${base}/v1`,
      'chat completions, completions, responses, embeddings, models',
    ),
    row('Anthropic SDK and messages-format tools', base, 'the root address, no /v1'),
  );
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
