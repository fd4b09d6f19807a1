import { describe, expect, it } from '@jest/globals';
import { Catalog, parseConfig } from '#libs/config';
import { renderStatusPage } from './status-page.js';

const catalog = new Catalog(
  parseConfig({
    providers: [{ id: 'p1', type: 'openai', base_url: 'http://x/v1', models: ['m<1>'] }],
    models: [
      { id: 'm<1>', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 2 } },
    ],
    groups: { default: ['m<1>'] },
  }),
  {},
);

describe('console status page', () => {
  it('shows groups, models and provider states, escaping config text', () => {
    const html = renderStatusPage({
      catalog,
      baseUrl: 'http://127.0.0.1:8080',
      routes: {
        version: 3,
        generatedAt: '2026-01-01T00:00:00Z',
        models: {
          'm<1>': [
            {
              providerId: 'p1',
              upstreamModel: 'm',
              priority: 0,
              weight: 1,
              state: 'down',
              reason: 'probe: HTTP 503',
            },
          ],
        },
      },
    });
    expect(html).toContain('<code>m&lt;1&gt;</code>');
    expect(html).not.toContain('m<1>');
    expect(html).toContain('p1 (down)');
    expect(html).toContain('route table v3');
    expect(html).toContain('http://127.0.0.1:8080/v1');
  });

  it('says when no routes were published', () => {
    expect(renderStatusPage({ catalog, routes: null, baseUrl: 'http://h' })).toContain(
      'has not published routes yet',
    );
  });
});
