import { describe, expect, it } from '@jest/globals';
import { Catalog, type ProviderRuntime } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { outcomeOfError, outcomeOfStatus, probeHeaders, probeUrl } from './probe-request.js';

function providerOf(
  type: 'openai' | 'openai-compatible' | 'perplexity' | 'anthropic',
  key?: string,
): ProviderRuntime {
  const config = parseConfig({
    providers: [
      { id: 'p', type, base_url: 'https://api.example.com/v1/', api_key_env: 'P_KEY', models: ['m'] },
    ],
    models: [
      { id: 'm', owned_by: 't', created: 0, pricing: { input_per_million: 0, output_per_million: 0 } },
    ],
    groups: {},
  });
  return new Catalog(config, { P_KEY: key }).providers.get('p')!;
}

describe('probe request', () => {
  it.each(['openai', 'openai-compatible', 'perplexity'] as const)('%s: bearer auth', (type) => {
    expect(probeHeaders(providerOf(type, 'sk-1'))).toMatchObject({ authorization: 'Bearer sk-1' });
    expect(probeHeaders(providerOf(type)).authorization).toBeUndefined();
  });

  it('anthropic: x-api-key and the API version, no bearer', () => {
    const headers = probeHeaders(providerOf('anthropic', 'sk-ant'));
    expect(headers).toMatchObject({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
    expect(headers.authorization).toBeUndefined();
    expect(probeHeaders(providerOf('anthropic'))['x-api-key']).toBeUndefined();
  });

  it('appends probe_path to the base URL path', () => {
    expect(probeUrl(providerOf('openai')).href).toBe('https://api.example.com/v1/models');
  });

  it("bedrock: ListFoundationModels on the region's control plane, not the runtime's base_url", () => {
    const bedrock = (extra: Record<string, unknown>, vars: Record<string, string> = {}): ProviderRuntime => {
      const config = parseConfig({
        providers: [{ id: 'b', type: 'bedrock', region: 'eu-west-3', models: ['m'], ...extra }],
        models: [
          { id: 'm', owned_by: 't', created: 0, pricing: { input_per_million: 0, output_per_million: 0 } },
        ],
        groups: {},
      });
      return new Catalog(config, vars).providers.get('b')!;
    };
    expect(probeUrl(bedrock({})).href).toBe('https://bedrock.eu-west-3.amazonaws.com/foundation-models');
    const vpce = {
      base_url: 'https://vpce-01-a.bedrock-runtime.eu-west-3.vpce.amazonaws.com',
      control_plane_url: 'https://vpce-02-b.bedrock.eu-west-3.vpce.amazonaws.com/',
    };
    expect(probeUrl(bedrock(vpce)).href).toBe(
      'https://vpce-02-b.bedrock.eu-west-3.vpce.amazonaws.com/foundation-models',
    );
    // A Bedrock API key: the bearer the runtime takes, which the control plane takes too; a GET has no content type.
    const keyed = probeHeaders(bedrock({ api_key_env: 'BR_KEY' }, { BR_KEY: 'ABSKkey' }));
    expect(keyed).toEqual({
      authorization: 'Bearer ABSKkey',
      accept: 'application/json',
      'user-agent': 'model-gateway-router',
    });
    // Signed (no key): no auth header here; the SigV4 signature is added per request.
    expect(probeHeaders(bedrock({})).authorization).toBeUndefined();
  });

  it.each([
    [200, true, 'probe: HTTP 200'],
    [204, true, 'probe: HTTP 204'],
    [404, true, 'probe: HTTP 404 (reachable)'],
    [429, true, 'probe: HTTP 429 (reachable)'],
    [401, false, 'probe: HTTP 401'],
    [403, false, 'probe: HTTP 403'],
    [500, false, 'probe: HTTP 500'],
    [503, false, 'probe: HTTP 503'],
  ])('HTTP %i -> ok=%s', (status, ok, text) => {
    const outcome = outcomeOfStatus(status, 5);
    expect(outcome.ok).toBe(ok);
    expect(outcome.ok ? outcome.detail : outcome.reason).toBe(text);
  });

  it('names connection errors by code and timeouts by the configured limit', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(outcomeOfError(refused, false, 2000)).toEqual({
      ok: false,
      reason: 'probe: ECONNREFUSED',
      latencyMs: null,
    });
    expect(outcomeOfError(new Error('aborted'), true, 2000)).toMatchObject({
      reason: 'probe: timeout after 2000ms',
    });
    const headers = Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(outcomeOfError(headers, false, 750)).toMatchObject({ reason: 'probe: timeout after 750ms' });
    expect(outcomeOfError(new Error('boom'), false, 1)).toMatchObject({ reason: 'probe: boom' });
  });
});
