import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { parseConfig } from './gateway-config.js';

const model = {
  id: 'm1',
  owned_by: 'x',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 2 },
};
const vertex = { id: 'vx', type: 'vertex', project: 'my-project-123', location: 'us-east5', models: ['m1'] };
const doc = (provider: Record<string, unknown>) => ({
  providers: [provider],
  models: [model],
  groups: { default: ['m1'] },
});

const errorOf = (provider: Record<string, unknown>): string => {
  try {
    parseConfig(doc(provider), 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('vertex provider settings', () => {
  it("defaults base_url to the location's endpoint, keeps a Private Service Connect one", () => {
    expect(parseConfig(doc(vertex)).providers[0]!.base_url).toBe(
      'https://us-east5-aiplatform.googleapis.com',
    );
    expect(parseConfig(doc({ ...vertex, location: 'global' })).providers[0]!.base_url).toBe(
      'https://aiplatform.googleapis.com',
    );
    expect(parseConfig(doc({ ...vertex, location: 'eu' })).providers[0]!.base_url).toBe(
      'https://aiplatform.eu.rep.googleapis.com',
    );
    const psc = { ...vertex, base_url: 'https://us-east5-aiplatform-vertex.p.googleapis.com/' };
    expect(parseConfig(doc(psc)).providers[0]!.base_url).toBe(
      'https://us-east5-aiplatform-vertex.p.googleapis.com',
    );
  });

  it('refuses a missing project or location at boot, naming the field', () => {
    const { project: _p, ...noProject } = vertex;
    expect(errorOf(noProject)).toMatch(/providers\[0\]\.project: required for type vertex/);
    const { location: _l, ...noLocation } = vertex;
    expect(errorOf(noLocation)).toMatch(/providers\[0\]\.location: required for type vertex/);
    expect(errorOf({ ...vertex, project: 'My Project' })).toMatch(
      /providers\[0\]\.project: a Google Cloud project ID/,
    );
    expect(errorOf({ ...vertex, location: 'US East' })).toMatch(
      /providers\[0\]\.location: a Vertex AI location/,
    );
  });

  it('takes no key (Google credentials only), and project and location on vertex only', () => {
    expect(errorOf({ ...vertex, api_key_env: 'VERTEX_KEY' })).toMatch(
      /providers\[0\]\.api_key_env: type vertex authenticates with Google credentials/,
    );
    const openai = { id: 'o', type: 'openai', base_url: 'https://api.openai.com/v1', models: ['m1'] };
    expect(errorOf({ ...openai, project: 'my-project-123' })).toMatch(
      /providers\[0\]\.project: project applies to type vertex only \(this provider is openai\)/,
    );
    const { base_url: _b, ...noBase } = openai;
    expect(errorOf(noBase)).toMatch(/providers\[0\]\.base_url: required/);
  });
});
