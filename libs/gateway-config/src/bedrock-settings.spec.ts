import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { parseConfig } from './gateway-config.js';

/** A provider's own settings, which the vendor-neutral entry type does not name. */
const own = (p: unknown): Record<string, unknown> => p as Record<string, unknown>;

const model = {
  id: 'm1',
  owned_by: 'x',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 2 },
};
const bedrock = { id: 'br', type: 'bedrock', region: 'eu-central-1', models: ['m1'] };
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

describe('bedrock provider settings', () => {
  it("defaults base_url to the region's Bedrock Runtime endpoint, keeps a VPC endpoint", () => {
    expect(parseConfig(doc(bedrock)).providers[0]!.base_url).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com',
    );
    const vpce = {
      ...bedrock,
      base_url: 'https://vpce-0a1b2c3d4e5f-abcdefgh.bedrock-runtime.eu-central-1.vpce.amazonaws.com/',
    };
    expect(parseConfig(doc(vpce)).providers[0]!.base_url).toBe(
      'https://vpce-0a1b2c3d4e5f-abcdefgh.bedrock-runtime.eu-central-1.vpce.amazonaws.com',
    );
  });

  it('refuses a missing or malformed region at boot, naming the field', () => {
    const { region: _r, ...noRegion } = bedrock;
    expect(errorOf(noRegion)).toMatch(/providers\[0\]\.region: required for type bedrock/);
    expect(errorOf({ ...bedrock, region: 'Frankfurt' })).toMatch(/providers\[0\]\.region: an AWS region/);
  });

  it('takes a Bedrock API key by its env var name, and refuses region on other types', () => {
    const keyed = parseConfig(doc({ ...bedrock, api_key_env: 'AWS_BEARER_TOKEN_BEDROCK' }));
    expect(keyed.providers[0]!.api_key_env).toBe('AWS_BEARER_TOKEN_BEDROCK');
    const openai = { id: 'o', type: 'openai', base_url: 'https://api.openai.com/v1', models: ['m1'] };
    expect(errorOf({ ...openai, region: 'us-east-1' })).toMatch(
      /providers\[0\]\.region: region applies to type bedrock only/,
    );
    expect(errorOf({ ...bedrock, project: 'my-project-123' })).toMatch(
      /providers\[0\]\.project: project applies to type vertex only/,
    );
  });

  it('takes control_plane_url for the probe on bedrock only, and refuses a probe_path there', () => {
    const vpce = parseConfig(
      doc({ ...bedrock, control_plane_url: 'https://vpce-02-b.bedrock.eu-central-1.vpce.amazonaws.com/' }),
    ).providers[0]!;
    expect(own(vpce).control_plane_url).toBe('https://vpce-02-b.bedrock.eu-central-1.vpce.amazonaws.com');
    expect(own(parseConfig(doc(bedrock)).providers[0]!).control_plane_url).toBeUndefined();
    expect(errorOf({ ...bedrock, probe_path: '/async-invoke' })).toMatch(
      /providers\[0\]\.probe_path: type bedrock probes ListFoundationModels on its control plane/,
    );
    const openai = { id: 'o', type: 'openai', base_url: 'https://api.openai.com/v1', models: ['m1'] };
    expect(parseConfig(doc(openai)).providers[0]!.probe_path).toBe('/models');
    expect(errorOf({ ...openai, control_plane_url: 'https://bedrock.us-east-1.amazonaws.com' })).toMatch(
      /providers\[0\]\.control_plane_url: control_plane_url applies to type bedrock only/,
    );
  });
});
