import Anthropic from '@anthropic-ai/sdk';
import { expect } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput, type ProviderType } from '#libs/config';
import { DEFAULT_AZURE_BEHAVIOUR as DEFAULT_AZURE } from '#libs/testing';
import { type Gateway, startGateway } from '../support/gateway.js';

/**
 * The conformance matrix's gateway: one mock provider playing five provider types, each serving
 * one model, so a model id picks the provider type a request must reach.
 */
export const PROVIDER_TYPES = [
  'openai',
  'openai-compatible',
  'perplexity',
  'anthropic',
  'gemini',
  'azure-openai',
] as const;

/** The provider types the matrix plays: one model each, so a model id picks the type. */
export type MatrixType = (typeof PROVIDER_TYPES)[number];

/**
 * Types covered by a spec of their own instead: `vertex` serves two wire formats (Gemini and
 * Claude models) where the matrix has one model per type (test/e2e/vertex.e2e-spec.ts runs every
 * client format against each); `bedrock` answers in binary event-stream frames behind SigV4,
 * which its own mock plays (test/e2e/bedrock.e2e-spec.ts: every client format, stream and not,
 * with the official SDKs, and the recorded agent requests). Every provider type is in one list or
 * the other, or this fails
 * to compile.
 */
type OwnSpec = 'vertex' | 'bedrock';
const everyTypeCovered: Exclude<ProviderType, MatrixType | OwnSpec> extends never ? true : never = true;
void everyTypeCovered;

export const MODEL_OF: Readonly<Record<MatrixType, string>> = {
  openai: 'm-openai',
  'openai-compatible': 'm-compat',
  perplexity: 'm-pplx',
  anthropic: 'm-claude',
  gemini: 'm-gemini',
  'azure-openai': 'm-azure',
};

/** The Azure deployment (of the mock's default resource) the azure-openai provider serves `m-azure` on. */
export const AZURE_DEPLOYMENT = 'chat-prod';
export const AZURE_API_VERSION = '2024-10-21';
/** The model that deployment runs, which Azure names in its answers. */
export const AZURE_DEPLOYED_MODEL = DEFAULT_AZURE.deployments[AZURE_DEPLOYMENT]!;
/** The env var holding the mock Azure resource's key (`DEFAULT_AZURE.apiKey`). */
const AZURE_KEY_ENV = 'AZURE_MATRIX_KEY';

/** The model the gemini provider serves `m-gemini` as. */
export const GEMINI_UPSTREAM = 'gemini-2.5-flash';

const PROVIDER_OF: Readonly<Record<MatrixType, string>> = {
  openai: 'p-openai',
  'openai-compatible': 'p-compat',
  perplexity: 'p-pplx',
  anthropic: 'p-anthropic',
  gemini: 'p-gemini',
  'azure-openai': 'p-azure',
};

export function matrixConfig(mockUrl: string): GatewayConfigInput {
  const model = (id: string) => ({
    id,
    owned_by: 'mock-provider',
    created: 1767225600,
    pricing: { input_per_million: 1, output_per_million: 2 },
  });
  const provider = (type: MatrixType, base: string) => ({
    id: PROVIDER_OF[type],
    type,
    base_url: base,
    // A real Gemini id upstream: the mock serves Google's models only, as Google does.
    models: [type === 'gemini' ? { id: MODEL_OF.gemini, upstream: GEMINI_UPSTREAM } : MODEL_OF[type]],
    ...(type === 'anthropic' ? { probe_path: '/v1/models' } : {}),
    ...(type === 'gemini' ? { probe_path: '/v1beta/models' } : {}),
    ...(type === 'azure-openai'
      ? {
          api_key_env: AZURE_KEY_ENV,
          api_version: AZURE_API_VERSION,
          deployments: { [MODEL_OF['azure-openai']]: AZURE_DEPLOYMENT },
        }
      : {}),
  });
  return {
    router: { probe_interval_ms: 200, probe_timeout_ms: 500, down_after_failures: 2 },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    routing: { provider_header: true },
    providers: [
      provider('openai', `${mockUrl}/v1`),
      // The mock plays an OpenAI-compatible server under /compat/v1 and Perplexity at its root.
      provider('openai-compatible', `${mockUrl}/compat/v1`),
      provider('perplexity', mockUrl),
      provider('anthropic', mockUrl),
      provider('gemini', mockUrl),
      // The mock plays an Azure OpenAI resource under /openai (its endpoint is the mock's root).
      provider('azure-openai', mockUrl),
    ],
    models: Object.values(MODEL_OF).map(model),
    groups: { default: Object.values(MODEL_OF) },
  };
}

export interface Matrix {
  readonly gw: Gateway;
  /** The raw API key of group default, for clients built by the spec itself. */
  readonly key: string;
  readonly openai: OpenAI;
  readonly anthropic: Anthropic;
}

/** `configFor`: the matrix's config, or one built on it (a spec adding a group of its own). */
export async function startMatrix(
  label: string,
  configFor: (mockUrl: string) => GatewayConfigInput = matrixConfig,
): Promise<Matrix> {
  const gw = await startGateway(label, configFor, { env: { [AZURE_KEY_ENV]: DEFAULT_AZURE.apiKey! } });
  const key = await gw.createKey();
  return {
    gw,
    key: key.raw,
    openai: new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 }),
  };
}

/** The request's log row: the provider the model's type implies, success, exact usage and its cost. */
export async function expectLogged(
  gw: Gateway,
  requestId: string,
  expected: {
    endpoint: string;
    type: MatrixType;
    stream: boolean;
    usage: { input: number; output: number };
  },
): Promise<void> {
  const row = await gw.logRow(requestId);
  expect(row).toMatchObject({
    endpoint: expected.endpoint,
    model: MODEL_OF[expected.type],
    provider_id: PROVIDER_OF[expected.type],
    status: 200,
    error_code: null,
    stream: expected.stream,
  });
  expect(expected.usage.input).toBeGreaterThan(0);
  expect(Number(row.input_tokens)).toBe(expected.usage.input);
  expect(Number(row.output_tokens)).toBe(expected.usage.output);
  expect(Number(row.cost_nanos)).toBe(expected.usage.input * 1000 + expected.usage.output * 2000);
}

/** The last request the mock received on a path (the upstream's view of a translated request). */
export function lastUpstream(
  gw: Gateway,
  path: string,
): { body: Record<string, unknown>; headers: Record<string, unknown> } {
  const req = gw.mock.requests.filter((r) => r.path === path).at(-1);
  if (!req) throw new Error(`no upstream request on ${path}`);
  return { body: req.body as Record<string, unknown>, headers: req.headers as Record<string, unknown> };
}

/** The upstream path a provider type is reached on for a translated (hub) request. */
export const HUB_PATH: Readonly<Record<MatrixType, string>> = {
  openai: '/v1/chat/completions',
  'openai-compatible': '/compat/v1/chat/completions',
  perplexity: '/chat/completions',
  anthropic: '/v1/messages',
  gemini: `/v1beta/models/${GEMINI_UPSTREAM}:generateContent`,
  'azure-openai': `/openai/deployments/${AZURE_DEPLOYMENT}/chat/completions`,
};

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather of a place',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
} as const;

export const TIME_TOOL = {
  name: 'get_time',
  description: 'Local time of a place',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
} as const;

/** A 1x1 PNG, as clients send images inline. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
