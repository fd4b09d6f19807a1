/**
 * How a client points its own SDK at the gateway, for the console's connect panel: the base
 * addresses each family of clients takes and a runnable sample per SDK. The console serves these,
 * so its web code names no SDK (which SDK takes which address is vendor knowledge, kept here).
 *
 * Samples are templates: `{{base}}` is the gateway's address, `{{model}}` a model, `{{key}}` the
 * key as the sample's language writes it (`keyStyle`); the web fills them in the browser, so a
 * key shown once never travels back to the console.
 */

/** How one language writes the key: a literal, or read from GATEWAY_API_KEY (with what that needs first). */
export interface KeyStyle {
  /** The key written in: `{{value}}` is the key. */
  readonly literal: string;
  /** The key read from the environment. */
  readonly env: string;
  /** Put before the sample when it reads the environment (an import). */
  readonly envPreamble: string;
}

export interface ClientAddress {
  readonly label: string;
  /** Appended to the gateway's address. */
  readonly path: string;
  readonly hint: string;
}

export interface ClientSnippet {
  readonly id: string;
  readonly label: string;
  readonly keyStyle: KeyStyle;
  readonly code: string;
}

export interface ClientSetup {
  readonly addresses: readonly ClientAddress[];
  readonly snippets: readonly ClientSnippet[];
}

const PYTHON: KeyStyle = {
  literal: '"{{value}}"',
  env: 'os.environ["GATEWAY_API_KEY"]',
  envPreamble: 'import os\n',
};
const NODE: KeyStyle = { literal: "'{{value}}'", env: 'process.env.GATEWAY_API_KEY', envPreamble: '' };
const SHELL: KeyStyle = { literal: '{{value}}', env: '$GATEWAY_API_KEY', envPreamble: '' };

const ADDRESSES: readonly ClientAddress[] = [
  {
    label: 'OpenAI SDKs and tools',
    path: '/v1',
    hint: 'chat completions, completions, responses, embeddings, models',
  },
  { label: 'Anthropic SDK and messages-format tools', path: '', hint: 'the root address, no /v1' },
];

const SNIPPETS: readonly ClientSnippet[] = [
  {
    id: 'python',
    label: 'Python',
    keyStyle: PYTHON,
    code: `from openai import OpenAI

client = OpenAI(base_url="{{base}}/v1", api_key={{key}})
reply = client.chat.completions.create(
    model="{{model}}",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(reply.choices[0].message.content)`,
  },
  {
    id: 'node',
    label: 'Node.js',
    keyStyle: NODE,
    code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '{{base}}/v1', apiKey: {{key}} });
const reply = await client.chat.completions.create({
  model: '{{model}}',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(reply.choices[0].message.content);`,
  },
  {
    id: 'curl',
    label: 'curl',
    keyStyle: SHELL,
    code: `curl {{base}}/v1/chat/completions \\
  -H "Authorization: Bearer {{key}}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "{{model}}", "messages": [{"role": "user", "content": "Hello!"}]}'`,
  },
  {
    id: 'anthropic',
    label: 'Anthropic SDK',
    keyStyle: PYTHON,
    code: `from anthropic import Anthropic

# The messages format uses the root address, without /v1.
client = Anthropic(base_url="{{base}}", api_key={{key}})
reply = client.messages.create(
    model="{{model}}", max_tokens=256,
    messages=[{"role": "user", "content": "Hello!"}],
)`,
  },
];

/** The addresses and samples the console's connect panel shows. */
export const CLIENT_SETUP: ClientSetup = { addresses: ADDRESSES, snippets: SNIPPETS };
