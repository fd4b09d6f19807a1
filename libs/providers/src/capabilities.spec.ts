import { describe, expect, it } from '@jest/globals';
import { PROVIDER_TYPES } from '#libs/config';
import { CLIENT_ENDPOINTS, PROVIDER_CAPABILITIES, providerTypesServing, servingFor } from './capabilities.js';

describe('provider capabilities', () => {
  it('has one row per configured provider type, with no endpoint both native and unserved', () => {
    expect(Object.keys(PROVIDER_CAPABILITIES).sort()).toEqual([...PROVIDER_TYPES].sort());
    for (const row of Object.values(PROVIDER_CAPABILITIES)) {
      expect(row.native.filter((e) => row.none.includes(e))).toEqual([]);
    }
  });

  it('serves each format natively at its own vendor and translates the rest', () => {
    expect(servingFor('openai', 'responses')).toBe('native');
    expect(servingFor('openai', 'messages')).toBe('translated');
    expect(servingFor('openai-compatible', 'responses')).toBe('translated');
    expect(servingFor('perplexity', 'chat')).toBe('native');
    expect(servingFor('perplexity', 'completions')).toBe('translated');
    expect(servingFor('anthropic', 'messages')).toBe('native');
    expect(servingFor('anthropic', 'chat')).toBe('translated');
  });

  it('sends embeddings only to providers that have embedding models', () => {
    expect(providerTypesServing('embeddings')).toEqual(['openai', 'openai-compatible']);
    expect(servingFor('anthropic', 'embeddings')).toBe('none');
  });

  it('lets every provider type serve every text endpoint', () => {
    for (const endpoint of CLIENT_ENDPOINTS.filter((e) => e !== 'embeddings')) {
      expect(providerTypesServing(endpoint)).toEqual(PROVIDER_TYPES);
    }
  });

  it('reaches anthropic through its own hub format and the others through OpenAI chat', () => {
    expect(PROVIDER_CAPABILITIES.anthropic.hubFormat).toBe('anthropic');
    for (const type of ['openai', 'openai-compatible', 'perplexity'] as const) {
      expect(PROVIDER_CAPABILITIES[type].hubFormat).toBe('openai-chat');
    }
  });
});
