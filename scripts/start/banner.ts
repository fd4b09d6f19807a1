export interface BannerInput {
  /** e.g. http://127.0.0.1:8080 */
  readonly edgeUrl: string;
  readonly consoleUrl: string;
  readonly color: boolean;
}

/** What a developer needs once everything is up: where it is, how to get a key, how to call it. */
export function readyBanner({ edgeUrl, consoleUrl, color }: BannerInput): string {
  const bold = (s: string): string => (color ? `\x1b[1m${s}\x1b[0m` : s);
  const body = JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hello!' }] });
  return [
    '',
    bold('The gateway is up.'),
    `  Base URL   ${edgeUrl}/v1   (for OpenAI SDKs: models, chat completions)`,
    `  Console    ${consoleUrl}`,
    '',
    bold('Sign in to the console:'),
    '  first run: open the one-time setup link the console printed above ("no admin yet. Open this',
    '  one-time link ..."), or restart with CONSOLE_ADMIN_EMAIL and CONSOLE_ADMIN_PASSWORD set;',
    '  then API keys > Create API key (the key is shown once).',
    '',
    bold('1. Or create a first API key (shown once) in another terminal:'),
    '  npm run key:create -- --email you@example.com --group default',
    '',
    bold('2. Call it with curl:'),
    '  export GATEWAY_API_KEY=sk-...   # the key from step 1',
    `  curl ${edgeUrl}/v1/chat/completions \\`,
    '    -H "Authorization: Bearer $GATEWAY_API_KEY" -H "Content-Type: application/json" \\',
    `    -d '${body}'`,
    '',
    bold('   or with the openai SDK (node, ESM):'),
    "  import OpenAI from 'openai';",
    `  const client = new OpenAI({ baseURL: '${edgeUrl}/v1', apiKey: process.env.GATEWAY_API_KEY });`,
    "  const reply = await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hello!' }] });",
    '  console.log(reply.choices[0].message.content);',
    '',
    'mock-gpt, mock-claude and mock-embedding are served by the local mock provider; set OPENAI_API_KEY,',
    'ANTHROPIC_API_KEY or PERPLEXITY_API_KEY before `npm start` to route to real vendors. Ctrl-C stops everything.',
    '',
  ].join('\n');
}
