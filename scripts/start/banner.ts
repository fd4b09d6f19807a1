export interface BannerInput {
  /** e.g. http://127.0.0.1:8080 */
  readonly edgeUrl: string;
  readonly consoleUrl: string;
  /** Whether the console has its first admin (GET /api/setup/status); unknown if it did not say. */
  readonly admin: 'exists' | 'missing' | 'unknown';
  /** The one-time setup link the console logged at boot, if it logged one. */
  readonly setupUrl: string | null;
}

export const KEY_CREATE_COMMAND = 'npm run key:create -- --email you@example.com --group default';

const SETUP_MISSING =
  'no setup link was logged (LOG_LEVEL above info?): restart, or set CONSOLE_ADMIN_EMAIL and CONSOLE_ADMIN_PASSWORD';

/** The banner as one structured record (JSON output): every address and the ways to a key. */
export function bannerFields(input: BannerInput): Record<string, unknown> {
  const setup = input.admin === 'exists' ? null : input.setupUrl;
  return {
    openai_base_url: `${input.edgeUrl}/v1`,
    anthropic_base_url: input.edgeUrl,
    console_url: input.consoleUrl,
    ...(setup ? { setup_url: setup } : {}),
    ...(input.admin === 'missing' && !setup ? { setup: SETUP_MISSING } : {}),
    api_keys_url: `${input.consoleUrl}/keys`,
    key_create: KEY_CREATE_COMMAND,
  };
}

/** The first-admin rows: the link, what to do without one, or nothing once an admin exists. */
function setupRows(input: BannerInput): [string, string][] {
  if (input.admin === 'exists') return [];
  if (input.setupUrl)
    return [
      ['First admin', input.setupUrl],
      ['', '(one-time, 24 h; or restart with CONSOLE_ADMIN_EMAIL and _PASSWORD set)'],
    ];
  if (input.admin === 'missing')
    return [
      ['First admin', 'no setup link was logged (LOG_LEVEL above info?): restart, or'],
      ['', 'set CONSOLE_ADMIN_EMAIL and CONSOLE_ADMIN_PASSWORD'],
    ];
  return [];
}

/**
 * What a developer needs once everything is ready, on one screen (at most 10 lines, under 100
 * columns with local addresses): where to point each SDK, the console, the first admin, a key.
 * The first call itself is the README's (curl and three SDKs do not fit here).
 */
export function readyBanner(input: BannerInput, color: boolean): string {
  const bold = (s: string): string => (color ? `\x1b[1m${s}\x1b[0m` : s);
  const rows: [string, string][] = [
    ['OpenAI SDKs', `${input.edgeUrl}/v1`],
    ['Anthropic SDKs', `${input.edgeUrl}   (the root address, no /v1)`],
    ['Console', input.consoleUrl],
    ...setupRows(input),
    ['API key', `${input.consoleUrl}/keys > Create API key, or in another terminal:`],
    ['', KEY_CREATE_COMMAND],
    ['First call', 'README.md, "First call, step by step" (model mock-gpt: the local mock)'],
  ];
  return [
    '',
    bold('The gateway is ready. Ctrl-C stops everything.'),
    ...rows.map(([label, text]) => `  ${label.padEnd(16)}${text}`),
    '',
  ].join('\n');
}
