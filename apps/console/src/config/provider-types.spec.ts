import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { CLIENT_SETUP, defineProvider, PROVIDER_DESCRIPTORS, PROVIDER_TYPES } from '#libs/providers';
import { providerTypeView, providerTypeViews } from './provider-types.js';

/** A type defined here only: what the view says comes from its descriptor, not from a list. */
const fixture = defineProvider({
  ...PROVIDER_DESCRIPTORS[0],
  type: 'fixture-cloud',
  label: 'Fixture cloud',
  settings: {
    zone: z.string().meta({ title: 'Zone', description: 'Where it runs.' }),
    tier: z.enum(['small', 'large']).optional().meta({ title: 'Tier' }),
    aliases: z.record(z.string(), z.string()).optional().meta({ title: 'Aliases' }),
    retries: z.number().int().optional(),
  },
  baseUrl: (entry) => `https://${String(entry.zone)}.example.com`,
  probe: { refusePath: 'probes itself' },
  keys: { refusal: 'type fixture-cloud takes no key' },
  ambient: {
    platform: 'fixture',
    identity: 'Fixture',
    envVars: { names: ['FIXTURE_CREDENTIALS'], prefixes: [] },
    label: { short: 'Fixture identity', long: 'The fixture identity of the apps’ environment' },
    build: () => {
      throw new Error('not built in this test');
    },
  },
  profile: (entry) => String(entry.tier ?? 'small'),
});

describe('the provider types the console publishes', () => {
  it('lists every registered type, in the registry order', () => {
    expect(providerTypeViews().map((t) => t.type)).toEqual(PROVIDER_TYPES);
  });

  it("gives a type's settings as JSON Schema with titles, descriptions and required fields", () => {
    const view = providerTypeView(fixture);
    expect(view.settings).toEqual({
      type: 'object',
      properties: {
        zone: { type: 'string', title: 'Zone', description: 'Where it runs.' },
        tier: { type: 'string', enum: ['small', 'large'], title: 'Tier' },
        aliases: expect.objectContaining({ type: 'object', title: 'Aliases' }),
        retries: expect.objectContaining({ type: 'integer' }),
      },
      required: ['zone'],
    });
    expect(view.settings).not.toHaveProperty('$schema');
  });

  it("says a derived base URL, a refused probe path and key, and the keyless credential's labels", () => {
    expect(providerTypeView(fixture)).toMatchObject({
      type: 'fixture-cloud',
      label: 'Fixture cloud',
      baseUrlRequired: false,
      probePath: false,
      keys: { allowed: false, refusal: 'type fixture-cloud takes no key' },
      ambient: { short: 'Fixture identity', long: 'The fixture identity of the apps’ environment' },
      profile: true,
    });
  });

  it('says a type needing a base URL and taking keys, with no ambient credential or profile', () => {
    const plain = defineProvider({
      ...fixture,
      settings: {},
      baseUrl: 'required',
      probe: 'path',
      keys: true,
    });
    const { ambient: _a, profile: _p, ...rest } = plain;
    expect(providerTypeView(rest)).toMatchObject({
      settings: { type: 'object', properties: {} },
      baseUrlRequired: true,
      probePath: true,
      keys: { allowed: true },
      ambient: null,
      profile: false,
    });
  });

  it('is JSON: the answer survives serialisation unchanged', () => {
    const views = providerTypeViews([...PROVIDER_DESCRIPTORS, fixture]);
    expect(JSON.parse(JSON.stringify(views))).toEqual(views);
  });
});

describe('the client setup the console publishes', () => {
  it('has templates only the placeholders the web fills, and a key style for each sample', () => {
    for (const s of CLIENT_SETUP.snippets) {
      expect(s.code).toContain('{{base}}');
      expect(s.code).toContain('{{key}}');
      expect(
        s.code.match(/\{\{(\w+)\}\}/g)?.every((p) => ['{{base}}', '{{model}}', '{{key}}'].includes(p)),
      ).toBe(true);
      expect(s.keyStyle.literal).toContain('{{value}}');
    }
    expect(new Set(CLIENT_SETUP.snippets.map((s) => s.id)).size).toBe(CLIENT_SETUP.snippets.length);
    expect(CLIENT_SETUP.addresses.length).toBeGreaterThan(0);
  });
});
