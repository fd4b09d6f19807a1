import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type GatewayConfigInput } from '#libs/config';
import { FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * Translations record the names of the fields they drop, and those names are the client's. Before
 * they were bounded and escaped where recorded, a NUL, a 301-character name or 70 names made the
 * worker refuse the log: the client was served, and no log row and no charge were written. Here
 * generated hostile names go through every translated route that records a client-chosen name, and
 * each served request must leave exactly one log row and one charge.
 */
const MODELS = { openai: 't-openai', anthropic: 't-anthropic', gemini: 't-gemini' } as const;

function config(mockUrl: string): GatewayConfigInput {
  return {
    ...FAST_TEST_SETTINGS,
    providers: [
      { id: 'p-openai', type: 'openai', base_url: `${mockUrl}/v1`, models: [MODELS.openai] },
      {
        id: 'p-anthropic',
        type: 'anthropic',
        base_url: mockUrl,
        probe_path: '/v1/models',
        models: [MODELS.anthropic],
      },
      {
        id: 'p-gemini',
        type: 'gemini',
        base_url: mockUrl,
        probe_path: '/v1beta/models',
        models: [{ id: MODELS.gemini, upstream: 'gemini-2.5-flash' }],
      },
    ],
    models: Object.values(MODELS).map(testModel),
    groups: { default: Object.values(MODELS) },
  };
}

let gw: Gateway;
let key: string;

beforeAll(async () => {
  gw = await startGateway('e2e-hostile-names', config);
  key = (await gw.createKey()).raw;
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const objectOf = (names: readonly string[]): Record<string, number> =>
  Object.fromEntries(names.map((name) => [name, 1]));

interface Route {
  readonly path: string;
  readonly body: (names: readonly string[]) => unknown;
}

/** Each a client format to another vendor's provider, with the names where the client chooses them. */
const ROUTES: Record<string, Route> = {
  'responses -> anthropic (web_search options)': {
    path: '/v1/responses',
    body: (names) => ({
      model: MODELS.anthropic,
      input: 'hi',
      tools: [{ type: 'web_search', ...objectOf(names) }],
    }),
  },
  'responses -> gemini (web_search options)': {
    path: '/v1/responses',
    body: (names) => ({
      model: MODELS.gemini,
      input: 'hi',
      tools: [{ type: 'web_search', ...objectOf(names) }],
    }),
  },
  'gemini -> anthropic (googleSearch options)': {
    path: `/v1beta/models/${MODELS.anthropic}:generateContent`,
    body: (names) => ({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [{ googleSearch: objectOf(names) }],
    }),
  },
  'chat -> gemini (stream_options)': {
    path: '/v1/chat/completions',
    body: (names) => ({
      model: MODELS.gemini,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: objectOf(names),
    }),
  },
};

/** Names the routes' own fields use: a hostile name is any other. */
const TAKEN = new Set([
  'type',
  'include_usage',
  'search_context_size',
  'filters',
  'user_location',
  '__proto__',
]);

const hostileName = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    fc.string({ unit: fc.constantFrom('\u0000', '\u001f', '\ud800', '\udc00', 'a', '\u2028'), minLength: 1 }),
    fc.string({ unit: 'grapheme', minLength: 280, maxLength: 2000 }),
  )
  .filter((name) => !TAKEN.has(name));

const hostileNames = fc.oneof(
  fc.uniqueArray(hostileName, { minLength: 1, maxLength: 5 }),
  fc.uniqueArray(hostileName, { minLength: 65, maxLength: 120 }),
);

/** The probe's cases: a NUL, one name of 301 characters, 70 short names. */
const PROBE_CASES: Array<[readonly string[]]> = [
  [['\u0000']],
  [['k'.repeat(301)]],
  [Array.from({ length: 70 }, (_, i) => `option_${i}`)],
];

async function send(route: Route, names: readonly string[]): Promise<{ status: number; requestId: string }> {
  const res = await fetch(`${gw.edgeUrl}${route.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(route.body(names)),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id') ?? '' };
}

const rowsOf = (table: 'request_logs' | 'charges', requestId: string) =>
  gw.db.db.selectFrom(table).select('request_id').where('request_id', '=', requestId).execute();

describe('hostile field names through every translated route', () => {
  it.each(Object.keys(ROUTES))(
    '%s: each served request has one log row and one charge',
    async (name) => {
      const route = ROUTES[name]!;
      await fc.assert(
        fc.asyncProperty(hostileNames, async (names) => {
          const { status, requestId } = await send(route, names);
          expect(status).toBe(200);
          const row = await gw.logRow(requestId);
          expect(row.status).toBe(200);
          expect(row.adjustments.length).toBeGreaterThan(0);
          expect(row.adjustments.length).toBeLessThanOrEqual(33);
          for (const item of row.adjustments) {
            expect(item.length).toBeLessThanOrEqual(200);
            // eslint-disable-next-line no-control-regex -- the point of the check
            expect(item).not.toMatch(/[\u0000-\u001f]/);
          }
          expect(await rowsOf('request_logs', requestId)).toHaveLength(1);
          expect(await rowsOf('charges', requestId)).toHaveLength(1);
        }),
        { numRuns: 5, examples: PROBE_CASES },
      );
    },
    60_000,
  );

  it('records a NUL escaped and 70 names as 32 and a count', async () => {
    const route = ROUTES['responses -> anthropic (web_search options)']!;
    const nul = await send(route, ['a\u0000b']);
    expect((await gw.logRow(nul.requestId)).adjustments).toContain('dropped tools[0].a\\u0000b');
    const many = await send(
      route,
      Array.from({ length: 70 }, (_, i) => `option_${i}`),
    );
    const items = (await gw.logRow(many.requestId)).adjustments;
    expect(items).toHaveLength(33);
    const unlisted = Number(/^and (\d+) more$/.exec(items.at(-1)!)?.[1]);
    // The 70 dropped names and the search tool's carried line, 32 of them listed.
    expect(32 + unlisted).toBeGreaterThanOrEqual(71);
  });
});
