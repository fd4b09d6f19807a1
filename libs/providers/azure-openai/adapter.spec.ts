import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { azureOpenAIAdapter, azureHeaders } from './adapter.js';
import { contentFilterError } from './content-filter.js';
import { azureEndpoint } from './endpoint.js';

describe('azureEndpoint', () => {
  const deployments = azureEndpoint({
    api_version: '2024-10-21',
    deployments: { 'gpt-4o': 'prod gpt' },
  } as never);

  it('puts chat, completions and embeddings under their deployment with the api-version', () => {
    expect(deployments.path('/chat/completions', 'gpt-4o')).toBe(
      '/openai/deployments/prod%20gpt/chat/completions?api-version=2024-10-21',
    );
    expect(deployments.path('/completions', 'gpt-4o')).toBe(
      '/openai/deployments/prod%20gpt/completions?api-version=2024-10-21',
    );
    expect(deployments.path('/embeddings', 'gpt-4o')).toBe(
      '/openai/deployments/prod%20gpt/embeddings?api-version=2024-10-21',
    );
  });

  it('keeps Responses and the model list unscoped, the deployment as the body model', () => {
    expect(deployments.path('/responses', 'gpt-4o')).toBe('/openai/responses?api-version=2024-10-21');
    expect(deployments.path('/models', '')).toBe('/openai/models?api-version=2024-10-21');
    expect(deployments.model('gpt-4o')).toBe('prod gpt');
    expect(() => deployments.model('other')).toThrow(/no Azure deployment/);
  });

  it('uses the v1 paths with the model in the body when no deployments are configured', () => {
    const v1 = azureEndpoint({} as never);
    expect(v1.path('/chat/completions', 'gpt-4o')).toBe('/openai/v1/chat/completions');
    expect(v1.model('gpt-4o')).toBe('gpt-4o');
    expect(azureEndpoint({ api_version: 'preview' } as never).path('/responses', 'x')).toBe(
      '/openai/v1/responses?api-version=preview',
    );
  });
});

describe('azureHeaders', () => {
  it("sends the key as Azure's api-key header, nothing without one (Entra ID adds the bearer)", () => {
    expect(azureHeaders('k1', {})['api-key']).toBe('k1');
    expect(azureHeaders('k1', {}).authorization).toBeUndefined();
    expect(azureHeaders(undefined, {})['api-key']).toBeUndefined();
  });
});

/** Azure's body for a prompt its content filter refused (a real shape, trimmed of the docs link). */
const FILTERED = JSON.stringify({
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
    type: null,
    param: 'prompt',
    code: 'content_filter',
    status: 400,
    innererror: {
      code: 'ResponsibleAIPolicyViolation',
      content_filter_result: {
        hate: { filtered: false, severity: 'safe' },
        jailbreak: { filtered: false, detected: false },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: true, severity: 'medium' },
      },
    },
  },
});

describe('contentFilterError', () => {
  it("turns Azure's content-filter 400 into the gateway's content_filter, naming the category", () => {
    const err = contentFilterError(400, Buffer.from(FILTERED));
    expect(err).toBeInstanceOf(GatewayError);
    expect(err!.code).toBe('content_filter');
    expect(err!.status).toBe(400);
    expect(err!.message).toMatch(/category: violence\)/);
    expect(azureOpenAIAdapter.clientError!(400, Buffer.from(FILTERED))!.code).toBe('content_filter');
  });

  it('leaves every other answer alone', () => {
    expect(contentFilterError(404, Buffer.from(FILTERED))).toBeNull();
    expect(contentFilterError(400, Buffer.from('{"error":{"code":"BadRequest","message":"x"}}'))).toBeNull();
    expect(contentFilterError(400, Buffer.from('content_filter but not JSON'))).toBeNull();
  });

  it('never echoes a category name that is not one', () => {
    const odd = FILTERED.replace('"violence"', '"<script>alert(1)</script>"');
    expect(contentFilterError(400, Buffer.from(odd))!.message).toMatch(/category: unspecified/);
  });
});
