import { describe, expect, it } from '@jest/globals';
import { bindingRefusal, credentialOf, credentialOrigins } from './credential-origins.js';

describe('where a provider sends its credential', () => {
  it('its base URL origin, and a Bedrock control plane set apart', () => {
    expect(credentialOrigins({ base_url: 'HTTPS://API.Example.com:443/v1' })).toEqual([
      'https://api.example.com',
    ]);
    expect(
      credentialOrigins({
        base_url: 'https://bedrock-runtime.us-east-1.amazonaws.com',
        control_plane_url: 'https://vpce-1.bedrock.us-east-1.vpce.amazonaws.com',
      }),
    ).toEqual([
      'https://bedrock-runtime.us-east-1.amazonaws.com',
      'https://vpce-1.bedrock.us-east-1.vpce.amazonaws.com',
    ]);
    // Userinfo does not hide the host the key goes to.
    expect(credentialOrigins({ base_url: 'https://api.openai.com@evil.example/v1' })).toEqual([
      'https://evil.example',
    ]);
  });

  it('which credential: a stored key, an env var, or the gateway own cloud identity', () => {
    expect(credentialOf({ type: 'openai', api_key_secret: 'id' })).toEqual({ kind: 'secret', id: 'id' });
    expect(credentialOf({ type: 'openai', api_key_env: 'K' })).toEqual({ kind: 'env', name: 'K' });
    expect(credentialOf({ type: 'openai' })).toEqual({ kind: 'none' });
    expect(credentialOf({ type: 'azure-openai' })).toEqual({ kind: 'ambient', platform: 'entra-id' });
    expect(credentialOf({ type: 'bedrock' })).toEqual({ kind: 'ambient', platform: 'aws' });
    expect(credentialOf({ type: 'bedrock', api_key_env: 'AWS_BEARER_TOKEN_BEDROCK' }).kind).toBe('env');
    expect(credentialOf({ type: 'vertex', api_key_env: 'X' })).toEqual({
      kind: 'ambient',
      platform: 'google',
    });
  });

  it('a binding holds for its provider at its origins only', () => {
    const binding = { provider: 'openai', origins: ['https://api.openai.com'] };
    expect(bindingRefusal(binding, { id: 'openai', base_url: 'https://api.openai.com/v1' })).toBeNull();
    expect(bindingRefusal(binding, { id: 'openai', base_url: 'https://evil.example/v1' })).toBe(
      'it was saved for provider openai at https://api.openai.com, not openai at https://evil.example: enter the key again to use it there',
    );
    expect(bindingRefusal(binding, { id: 'mine', base_url: 'https://api.openai.com/v1' })).toMatch(
      /not mine at/,
    );
    expect(bindingRefusal(null, { id: 'openai', base_url: 'https://api.openai.com/v1' })).toMatch(
      /stored before keys were bound/,
    );
  });
});
