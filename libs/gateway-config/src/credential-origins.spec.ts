import { describe, expect, it } from '@jest/globals';
import { bindingRefusal, credentialOf, credentialOrigins, type ProviderConfig } from '#libs/config';
import { parseConfig } from './gateway-config.js';

/** One provider entry as the configuration's schema makes it (its descriptor's rules applied). */
function entry(provider: Record<string, unknown>): ProviderConfig {
  const model = {
    id: 'm',
    owned_by: 'x',
    created: 1,
    pricing: { input_per_million: 1, output_per_million: 1 },
  };
  const config = parseConfig({
    providers: [{ id: 'p', models: ['m'], ...provider }],
    models: [model],
    groups: { default: ['m'] },
  });
  return config.providers[0]!;
}

const openai = (extra: Record<string, unknown> = {}) =>
  entry({ type: 'openai', base_url: 'https://api.openai.com/v1', ...extra });

describe('where a provider sends its credential', () => {
  it('its base URL origin, and a Bedrock control plane set apart', () => {
    expect(credentialOrigins(openai({ base_url: 'HTTPS://API.Example.com:443/v1' }))).toEqual([
      'https://api.example.com',
    ]);
    const bedrock = entry({
      type: 'bedrock',
      region: 'us-east-1',
      control_plane_url: 'https://vpce-1.bedrock.us-east-1.vpce.amazonaws.com',
    });
    expect(credentialOrigins(bedrock)).toEqual([
      'https://bedrock-runtime.us-east-1.amazonaws.com',
      'https://vpce-1.bedrock.us-east-1.vpce.amazonaws.com',
    ]);
    // Userinfo does not hide the host the key goes to.
    expect(credentialOrigins(openai({ base_url: 'https://api.openai.com@evil.example/v1' }))).toEqual([
      'https://evil.example',
    ]);
  });

  it('which credential: a stored key, an env var, or the gateway own cloud identity', () => {
    const id = '7d3f0a52-6c1e-4d51-9a57-2f1f4b1f3c11';
    expect(credentialOf(openai({ api_key_secret: id }))).toEqual({ kind: 'secret', id });
    expect(credentialOf(openai({ api_key_env: 'K' }))).toEqual({ kind: 'env', name: 'K' });
    expect(credentialOf(openai())).toEqual({ kind: 'none' });
    const azure = entry({ type: 'azure-openai', base_url: 'https://x.openai.azure.com' });
    expect(credentialOf(azure)).toEqual({ kind: 'ambient', platform: 'entra-id' });
    const bedrock = { type: 'bedrock', region: 'us-east-1' };
    expect(credentialOf(entry(bedrock))).toEqual({ kind: 'ambient', platform: 'aws' });
    expect(credentialOf(entry({ ...bedrock, api_key_env: 'AWS_BEARER_TOKEN_BEDROCK' })).kind).toBe('env');
    const vertex = entry({ type: 'vertex', project: 'my-project-123', location: 'global' });
    expect(credentialOf(vertex)).toEqual({ kind: 'ambient', platform: 'google' });
  });

  it('a binding holds for its provider at its origins only', () => {
    const binding = { provider: 'p', origins: ['https://api.openai.com'] };
    expect(bindingRefusal(binding, openai())).toBeNull();
    expect(bindingRefusal(binding, openai({ base_url: 'https://evil.example/v1' }))).toBe(
      'it was saved for provider p at https://api.openai.com, not p at https://evil.example: enter the key again to use it there',
    );
    expect(bindingRefusal(binding, openai({ id: 'mine' }))).toMatch(/not mine at/);
    expect(bindingRefusal(null, openai())).toMatch(/stored before keys were bound/);
  });
});
