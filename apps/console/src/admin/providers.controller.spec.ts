import { describe, expect, it } from '@jest/globals';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { providerView } from './providers.controller.js';

const model = (id: string) => ({
  id,
  owned_by: 'x',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 1 },
});

describe('provider view', () => {
  it('shows the vendor profile of openai-compatible providers, generic unless set', () => {
    const config = parseConfig({
      providers: [
        { id: 'oa', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] },
        { id: 'vllm', type: 'openai-compatible', base_url: 'http://127.0.0.1:2/v1', models: ['m'] },
        {
          id: 'gq',
          type: 'openai-compatible',
          vendor: 'groq',
          base_url: 'http://127.0.0.1:3/v1',
          models: ['m'],
        },
      ],
      models: [model('m')],
      groups: { default: ['m'] },
    });
    const views = [...new Catalog(config, {}).providers.values()].map(providerView);
    expect(views.map((v) => [v.id, v.type, v.vendor])).toEqual([
      ['oa', 'openai', null],
      ['vllm', 'openai-compatible', 'generic'],
      ['gq', 'openai-compatible', 'groq'],
    ]);
    expect(views[0]).toEqual({
      id: 'oa',
      type: 'openai',
      vendor: null,
      priority: 0,
      weight: 1,
      models: ['m'],
      disabledReason: null,
    });
  });
});
