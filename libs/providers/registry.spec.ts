import { describe, expect, it } from '@jest/globals';
import {
  adapterOf,
  CLIENT_APIS,
  PROVIDER_ADAPTERS,
  PROVIDER_TYPES,
  providerTypesServing,
  servingOf,
} from './registry.js';

const {
  chat,
  completions,
  responses,
  embeddings,
  messages,
  count_tokens,
  generate_content,
  count_content_tokens,
} = CLIENT_APIS;

describe('the adapter registry', () => {
  it('has one adapter per configured provider type, with no API both native and unserved', () => {
    expect(Object.keys(PROVIDER_ADAPTERS).sort()).toEqual([...PROVIDER_TYPES].sort());
    for (const adapter of Object.values(PROVIDER_ADAPTERS)) {
      expect(adapter.none.filter((api) => adapter.native[api] !== undefined)).toEqual([]);
    }
  });

  it('serves each format natively at its own vendor and translates the rest', () => {
    expect(servingOf(responses, 'openai')).toBe('native');
    expect(servingOf(messages, 'openai')).toBe('translated');
    expect(servingOf(responses, 'openai-compatible')).toBe('translated');
    expect(servingOf(chat, 'perplexity')).toBe('native');
    expect(servingOf(completions, 'perplexity')).toBe('translated');
    expect(servingOf(messages, 'anthropic')).toBe('native');
    expect(servingOf(chat, 'anthropic')).toBe('translated');
  });

  it('sends embeddings only to providers that have embedding models, token counts only upstream natively', () => {
    expect(providerTypesServing(embeddings)).toEqual([
      'openai',
      'openai-compatible',
      'azure-openai',
      'vertex',
      'bedrock',
    ]);
    expect(servingOf(embeddings, 'anthropic')).toBe('none');
    expect(providerTypesServing(count_tokens)).toEqual(['anthropic', 'vertex']);
  });

  it("serves embeddings at the clouds through their embedding models' own translators, and nothing else there", () => {
    for (const [type, model] of [
      ['vertex', 'text-embedding-005'],
      ['vertex', 'gemini-embedding-001'],
      ['bedrock', 'amazon.titan-embed-text-v2:0'],
      ['bedrock', 'cohere.embed-multilingual-v3'],
    ] as const) {
      expect(servingOf(embeddings, type, model)).toBe('translated');
      expect(adapterOf(type, model).direct?.embeddings).toBeDefined();
      for (const api of [chat, completions, responses, messages, generate_content])
        expect(servingOf(api, type, model)).toBe('none');
    }
    expect(servingOf(embeddings, 'bedrock', 'amazon.nova-pro-v1:0')).toBe('none');
    expect(servingOf(embeddings, 'bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0')).toBe('none');
  });

  it('serves Google generateContent natively at gemini and translated everywhere else, its token count only upstream at gemini', () => {
    expect(servingOf(generate_content, 'gemini')).toBe('native');
    expect(servingOf(chat, 'gemini')).toBe('translated');
    expect(servingOf(embeddings, 'gemini')).toBe('none');
    expect(providerTypesServing(count_content_tokens)).toEqual(['gemini', 'vertex']);
  });

  it("serves each vertex model through its publisher's adapter: Claude as Anthropic's, Gemini as Google's", () => {
    const claude = 'claude-sonnet-4@20250514';
    const gemini = 'gemini-2.5-flash';
    expect(servingOf(messages, 'vertex', claude)).toBe('native');
    expect(servingOf(count_tokens, 'vertex', claude)).toBe('native');
    expect(servingOf(generate_content, 'vertex', claude)).toBe('translated');
    expect(servingOf(generate_content, 'vertex', gemini)).toBe('native');
    expect(servingOf(messages, 'vertex', gemini)).toBe('translated');
    expect(servingOf(count_tokens, 'vertex', gemini)).toBe('none');
    expect(servingOf(embeddings, 'vertex', gemini)).toBe('none');
    // No model named: the best way any of its models is served.
    expect(servingOf(messages, 'vertex')).toBe('native');
    expect(servingOf(embeddings, 'vertex')).toBe('translated');
    expect(adapterOf('vertex', claude).hubFormat({} as never).wire.name).toBe('anthropic-messages');
    expect(adapterOf('vertex', gemini).hubFormat({} as never).wire.name).toBe('gemini');
    expect(adapterOf('anthropic', claude)).toBe(PROVIDER_ADAPTERS.anthropic);
  });

  it('lets every provider type serve every text API', () => {
    for (const api of [chat, completions, responses, messages, generate_content]) {
      expect(providerTypesServing(api)).toEqual(PROVIDER_TYPES);
    }
  });

  it('reaches each provider type through its hub format, with its wire format for the answers', () => {
    expect(PROVIDER_ADAPTERS.anthropic.hubFormat({} as never).wire.name).toBe('anthropic-messages');
    expect(PROVIDER_ADAPTERS.gemini.hubFormat({} as never).wire.name).toBe('gemini');
    for (const type of ['openai', 'openai-compatible', 'perplexity', 'azure-openai'] as const) {
      expect(PROVIDER_ADAPTERS[type].hubFormat({} as never).wire.name).toBe('openai-chat');
    }
    expect(PROVIDER_ADAPTERS['openai-compatible'].hubFormat({ vendor: 'groq' } as never)).not.toBe(
      PROVIDER_ADAPTERS['openai-compatible'].hubFormat({} as never),
    );
  });
});
