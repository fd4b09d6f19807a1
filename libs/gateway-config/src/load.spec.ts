import { describe, expect, it } from '@jest/globals';
import { Catalog, configDocumentOf, ConfigError, readEnv, redactUrl } from '#libs/config';
import { loadConfigFile, parseConfig, validateConfig } from './gateway-config.js';

/** A provider's own settings, which the vendor-neutral entry type does not name. */
const own = (p: unknown): Record<string, unknown> => p as Record<string, unknown>;

const valid = () => ({
  providers: [
    {
      id: 'p1',
      type: 'openai',
      base_url: 'http://127.0.0.1:4010/v1/',
      models: ['m1', { id: 'm2', upstream: 'm2-up' }],
    },
  ],
  models: [
    { id: 'm1', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 2 } },
    { id: 'm2', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 2 } },
  ],
  groups: { default: ['m1'] },
});

const errorOf = (doc: unknown): string => {
  try {
    parseConfig(doc, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('gateway config', () => {
  it('parses, applies defaults and normalises', () => {
    const cfg = parseConfig(valid());
    expect(cfg.providers[0]!.base_url).toBe('http://127.0.0.1:4010/v1');
    expect(cfg.providers[0]!.models).toEqual([
      { id: 'm1', upstream: 'm1' },
      { id: 'm2', upstream: 'm2-up' },
    ]);
    expect(cfg.providers[0]!.priority).toBe(0);
    expect(cfg.edge.body_limit_bytes).toBeGreaterThan(0);
    expect(Object.isFrozen(cfg.providers[0])).toBe(true);
  });

  it('names the bad field', () => {
    const doc = valid();
    (doc.providers[0] as { base_url: string }).base_url = 'not a url';
    expect(errorOf(doc)).toMatch(/providers\[0\]\.base_url/);
  });

  it('takes a display name and a context window for a model, and a provider kept but disabled', () => {
    const doc = valid();
    const models = doc.models.map((m) => ({ ...m, display_name: 'Model One', context_window: 128_000 }));
    const providers = doc.providers.map((p) => ({ ...p, enabled: false }));
    const cfg = parseConfig({ ...doc, models, providers });
    expect(cfg.models[0]).toMatchObject({ display_name: 'Model One', context_window: 128_000 });
    expect(cfg.providers[0]!.enabled).toBe(false);
    expect(parseConfig(doc).providers[0]!.enabled).toBe(true);
    expect(
      errorOf({ ...doc, models: [{ ...doc.models[0], display_name: 'a\nb' }, doc.models[1]] }),
    ).toContain('models[0].display_name: no control characters');
    expect(errorOf({ ...doc, models: [{ ...doc.models[0], context_window: 0 }, doc.models[1]] })).toContain(
      'models[0].context_window',
    );
  });

  it('keeps sessions sticky by default, routing-wide or per model, and refuses a non-boolean switch', () => {
    const doc = valid();
    expect(parseConfig(doc).routing.sticky_sessions).toBe(true);
    expect(parseConfig(doc).models[0]!.sticky_sessions).toBeUndefined();
    const off = parseConfig({ ...doc, routing: { sticky_sessions: false } });
    expect(off.routing.sticky_sessions).toBe(false);
    const models = [{ ...doc.models[0], sticky_sessions: false }, doc.models[1]];
    expect(parseConfig({ ...doc, models }).models[0]!.sticky_sessions).toBe(false);
    expect(errorOf({ ...doc, routing: { sticky_sessions: 'yes' } })).toContain('routing.sticky_sessions');
    expect(errorOf({ ...doc, models: [{ ...doc.models[0], sticky_sessions: 1 }, doc.models[1]] })).toContain(
      'models[0].sticky_sessions',
    );
  });

  it('keeps the document it was parsed from, and refuses a provider with both kinds of key', () => {
    const doc = valid();
    expect(configDocumentOf(parseConfig(doc))).toEqual(doc);
    const both = {
      ...doc.providers[0],
      api_key_env: 'K',
      api_key_secret: '6f1c8a8e-2f6b-4d8e-9a51-0c1f2e3d4b5a',
    };
    expect(errorOf({ ...doc, providers: [both] })).toContain(
      'providers[0].api_key_secret: set api_key_env or api_key_secret, not both',
    );
    expect(
      validateConfig({ ...doc, providers: [{ ...doc.providers[0], base_url: 'ftp://x' }] }),
    ).toMatchObject({
      ok: false,
      issues: [{ path: 'providers[0].base_url' }],
    });
  });

  it('rejects unknown fields, so typos never pass silently', () => {
    expect(errorOf({ ...valid(), provders: [] })).toMatch(/provders/);
  });

  it('takes an audio input price and fees per thousand of a counter, and names a bad one', () => {
    const doc = valid();
    const model = doc.models[0] as { pricing: unknown };
    const pricing = {
      input_per_million: 0.3,
      output_per_million: 2.5,
      input_audio_per_million: 1,
      fees_per_thousand: { web_search_requests: 10, requests: 12, input_characters: 0.000025 },
    };
    model.pricing = pricing;
    expect(parseConfig(doc).models[0]!.pricing).toEqual(pricing);
    model.pricing = { ...pricing, fees_per_thousand: { web_searches: 10 } };
    expect(errorOf(doc)).toMatch(/models\[0\]\.pricing\.fees_per_thousand: Unrecognized key: "web_searches"/);
    model.pricing = { ...pricing, input_audio_per_million: -1 };
    expect(errorOf(doc)).toMatch(/models\[0\]\.pricing\.input_audio_per_million/);
    model.pricing = { ...pricing, fees_per_thousand: { input_characters: -0.000025 } };
    expect(errorOf(doc)).toMatch(/models\[0\]\.pricing\.fees_per_thousand\.input_characters/);
  });

  it('rejects references to models that do not exist', () => {
    const doc = valid();
    doc.groups.default.push('nope');
    expect(errorOf(doc)).toMatch(/groups\.default\[1\]: unknown model nope/);
  });

  it('rejects model ids with surrounding spaces and duplicate ids', () => {
    const doc = valid();
    doc.models[1]!.id = 'm1';
    expect(errorOf(doc)).toMatch(/models\[1\]\.id: duplicate model m1/);
    const spaced = valid();
    spaced.models[0]!.id = ' m1';
    expect(errorOf(spaced)).toMatch(/models\[0\]\.id/);
  });

  it('takes Azure settings on azure-openai only, and refuses a served model without a deployment', () => {
    const doc = valid();
    const azure = {
      ...doc.providers[0]!,
      type: 'azure-openai',
      api_version: '2024-10-21',
      deployments: { m1: 'dep-1', 'm2-up': 'dep-2' },
    };
    expect(own(parseConfig({ ...doc, providers: [azure] }).providers[0]!).deployments).toEqual({
      m1: 'dep-1',
      'm2-up': 'dep-2',
    });
    const { deployments: _d, api_version: _v, ...v1 } = azure;
    expect(own(parseConfig({ ...doc, providers: [v1] }).providers[0]!).deployments).toBeUndefined();
    expect(errorOf({ ...doc, providers: [{ ...azure, deployments: { m1: 'dep-1' } }] })).toMatch(
      /providers\[0\]\.deployments: no deployment for the served model m2-up/,
    );
    expect(errorOf({ ...doc, providers: [{ ...azure, api_version: undefined }] })).toMatch(
      /providers\[0\]\.api_version: required with deployments/,
    );
    expect(errorOf({ ...doc, providers: [{ ...doc.providers[0]!, api_version: '2024-10-21' }] })).toMatch(
      /providers\[0\]\.api_version: api_version applies to type azure-openai only/,
    );
  });

  it('takes a vendor profile on openai-compatible providers only', () => {
    const doc = valid();
    const compat = { ...doc.providers[0]!, type: 'openai-compatible', vendor: 'groq' };
    expect(own(parseConfig({ ...doc, providers: [compat] }).providers[0]!).vendor).toBe('groq');
    expect(own(parseConfig(doc).providers[0]!).vendor).toBeUndefined();
    expect(errorOf({ ...doc, providers: [{ ...compat, vendor: 'grok' }] })).toMatch(/providers\[0\]\.vendor/);
    expect(errorOf({ ...doc, providers: [{ ...doc.providers[0]!, vendor: 'deepseek' }] })).toMatch(
      /providers\[0\]\.vendor: vendor applies to type openai-compatible only \(this provider is openai\)/,
    );
  });

  it('reports an unreadable file and bad YAML clearly', () => {
    expect(() => loadConfigFile('/nonexistent/gateway.yaml')).toThrow(/cannot read gateway config/);
  });

  it('loads the shipped default config', () => {
    const cfg = loadConfigFile('config/gateway.yaml');
    expect(cfg.groups.default).toContain('mock-gpt');
  });
});

describe('catalog', () => {
  it('disables a provider whose secret env var is unset, and resolves it when set', () => {
    const doc = valid();
    (doc.providers[0] as Record<string, unknown>).api_key_env = 'P1_KEY';
    const cfg = parseConfig(doc);
    expect(new Catalog(cfg, {}).providers.get('p1')!.disabledReason).toBe(
      'env P1_KEY is not set, or not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS)',
    );
    const enabled = new Catalog(cfg, { P1_KEY: 'secret' }).providers.get('p1')!;
    expect(enabled.disabledReason).toBeNull();
    expect(enabled.apiKey).toBe('secret');
  });

  it("never resolves one of the gateway's own settings, even when handed one", () => {
    const doc = valid();
    (doc.providers[0] as Record<string, unknown>).api_key_env = 'CONSOLE_ADMIN_TOKEN';
    const p = new Catalog(parseConfig(doc), { CONSOLE_ADMIN_TOKEN: 'admin-token' }).providers.get('p1')!;
    expect(p.apiKey).toBeUndefined();
    expect(p.disabledReason).toBe(
      "env CONSOLE_ADMIN_TOKEN is one of the gateway's own settings, never a provider key",
    );
  });

  it('offers only models an enabled provider serves', () => {
    const doc = valid();
    doc.providers.push({
      id: 'p2',
      type: 'openai',
      base_url: 'http://y/v1',
      models: ['m3'],
      api_key_env: 'P2_KEY',
    } as never);
    doc.models.push({
      id: 'm3',
      owned_by: 'x',
      created: 1,
      pricing: { input_per_million: 1, output_per_million: 1 },
    });
    doc.groups.default.push('m3');
    const cfg = parseConfig(doc);
    expect(new Catalog(cfg, {}).availableModelsOfGroup('default').map((m) => m.id)).toEqual(['m1']);
    expect(new Catalog(cfg, { P2_KEY: 'k' }).availableModelsOfGroup('default').map((m) => m.id)).toEqual([
      'm1',
      'm3',
    ]);
  });

  it('lists the models of a group only', () => {
    const catalog = new Catalog(parseConfig(valid()), {});
    expect(catalog.modelsOfGroup('default').map((m) => m.id)).toEqual(['m1']);
    expect(catalog.modelsOfGroup('unknown')).toEqual([]);
  });
});

describe('env', () => {
  it('has localhost defaults and rejects bad ports', () => {
    const env = readEnv({});
    expect(env.redis).toEqual({ url: 'redis://127.0.0.1:6379', cluster: false });
    expect(env.edgePort).toBe(8080);
    expect(() => readEnv({ EDGE_PORT: 'eighty' })).toThrow(/EDGE_PORT/);
  });
});

describe('redactUrl', () => {
  it('never prints a password', () => {
    expect(redactUrl('postgres://gw:s3cret@db:5432/gateway')).toBe('postgres://gw:***@db:5432/gateway');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/gateway')).toBe(
      'postgres://postgres@127.0.0.1:5432/gateway',
    );
    expect(redactUrl('not a url')).toBe('(unparsable URL)');
  });
});
