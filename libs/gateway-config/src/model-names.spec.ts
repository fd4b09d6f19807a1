import { describe, expect, it } from '@jest/globals';
import { CatalogSnapshot, ConfigError } from '#libs/config';
import { parseConfig, validateConfig } from './gateway-config.js';

const model = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  owned_by: 'x',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 2 },
  ...extra,
});

/** Models a..d on one provider; `extra` per model id; groups as given (default: all in one). */
const doc = (extra: Record<string, Record<string, unknown>> = {}, groups?: Record<string, unknown>) => ({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['a', 'b', 'c', 'd'] }],
  models: ['a', 'b', 'c', 'd'].map((id) => model(id, extra[id])),
  groups: groups ?? { default: ['a', 'b', 'c', 'd'] },
});

const errorOf = (d: unknown): string => {
  try {
    parseConfig(d, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

const snapshotOf = (d: unknown): CatalogSnapshot => new CatalogSnapshot(parseConfig(d), {});

describe('aliases in the config', () => {
  it('takes aliases and the listing switch', () => {
    const cfg = parseConfig(doc({ a: { aliases: ['fast', 'a-latest'], list_aliases: true } }));
    expect(cfg.models[0]).toMatchObject({ aliases: ['fast', 'a-latest'], list_aliases: true });
  });

  it('refuses an alias that is a model id, or another alias, naming the field', () => {
    expect(errorOf(doc({ a: { aliases: ['b'] } }))).toContain(
      'models[0].aliases[0]: alias b is the id of a model',
    );
    expect(errorOf(doc({ a: { aliases: ['x'] }, c: { aliases: ['x'] } }))).toContain(
      'models[2].aliases[0]: alias x is already an alias of model a',
    );
    expect(errorOf(doc({ a: { aliases: ['x', 'x'] } }))).toContain(
      'models[0].aliases[1]: alias x is already an alias of this model',
    );
    expect(errorOf(doc({ a: { aliases: [' x'] } }))).toContain('models[0].aliases[0]');
  });
});

describe('fallbacks in the config', () => {
  it('refuses an unknown model, the model itself, a repeat and an alias, naming the field', () => {
    expect(errorOf(doc({ a: { fallbacks: ['zz'] } }))).toContain(
      'models[0].fallbacks[0]: unknown model zz (not in models; name a model by its id, not an alias)',
    );
    expect(errorOf(doc({ a: { fallbacks: ['a'] } }))).toContain(
      'models[0].fallbacks[0]: a model cannot fall back to itself',
    );
    expect(errorOf(doc({ a: { fallbacks: ['b', 'b'] } }))).toContain(
      'models[0].fallbacks[1]: b is named twice',
    );
    expect(errorOf(doc({ a: { fallbacks: ['fast'] }, b: { aliases: ['fast'] } }))).toContain(
      'models[0].fallbacks[0]: unknown model fast',
    );
  });

  it('refuses a cycle, at the fallback that closes it', () => {
    expect(
      errorOf(doc({ a: { fallbacks: ['b'] }, b: { fallbacks: ['c'] }, c: { fallbacks: ['a'] } })),
    ).toContain('models[2].fallbacks[0]: fallback cycle: a -> b -> c -> a');
    const issues = validateConfig(doc({ a: { fallbacks: ['b'] }, b: { fallbacks: ['a'] } }));
    expect(issues).toMatchObject({ ok: false });
  });

  it('takes a group switching fallbacks off, and says so in the error of a bad group', () => {
    const cfg = parseConfig(doc({}, { default: ['a'], strictly: { models: ['a'], fallbacks: false } }));
    expect(cfg.no_fallback_groups).toEqual(['strictly']);
    expect(cfg.groups.strictly).toEqual(['a']);
    expect(errorOf(doc({}, { default: { models: ['a'], fallbacks: 'no' } }))).toContain(
      'fallbacks: true|false',
    );
  });
});

describe('the snapshot', () => {
  it('resolves an alias inside the group only; a model outside it is not allowed', () => {
    const snap = snapshotOf(doc({ a: { aliases: ['fast'] }, c: { aliases: ['slow'] } }, { g: ['a', 'b'] }));
    expect(snap.resolveModel('g', 'fast')).toMatchObject({ id: 'a' });
    expect(snap.resolveModel('g', 'a')).toMatchObject({ id: 'a' });
    expect(snap.resolveModel('g', 'slow')).toBe('unknown');
    expect(snap.resolveModel('g', 'c')).toBe('not_allowed');
    expect(snap.resolveModel('g', 'nope')).toBe('unknown');
    expect(snap.resolveModel('other', 'fast')).toBe('unknown');
  });

  it('follows each fallback by its own, once each, inside the group, and none where switched off', () => {
    const models = { a: { fallbacks: ['b', 'c'] }, b: { fallbacks: ['d', 'c'] }, c: { fallbacks: ['d'] } };
    const snap = snapshotOf(
      doc(models, {
        all: ['a', 'b', 'c', 'd'],
        some: ['a', 'c', 'd'],
        off: { models: ['a', 'b', 'c', 'd'], fallbacks: false },
      }),
    );
    expect(snap.fallbacksOf('all', 'a')).toEqual(['b', 'd', 'c']);
    expect(snap.fallbacksOf('all', 'c')).toEqual(['d']);
    expect(snap.fallbacksOf('all', 'd')).toEqual([]);
    expect(snap.fallbacksOf('some', 'a')).toEqual(['d', 'c']);
    expect(snap.fallbacksOf('some', 'b')).toEqual([]);
    expect(snap.fallbacksOf('off', 'a')).toEqual([]);
  });
});
