import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { type ProviderType } from '#libs/providers';
import {
  DEFAULT_AZURE_BEHAVIOUR as DEFAULT_AZURE,
  DEFAULT_VERTEX_BEHAVIOUR,
  MOCK_AWS_CREDENTIAL,
  type MockBedrock,
  startMockBedrock,
  startMockGoogle,
} from '#libs/testing';
import { type Gateway, startGateway } from '../support/gateway.js';

/**
 * The conformance matrix's rows, the compatibility table's columns: one per provider type, and
 * one per kind of model for the types that serve several kinds each in its own way (Vertex:
 * Google's Gemini, Anthropic's Claude, Google's embedding models; Bedrock: Claude through
 * InvokeModel, any other model through Converse, embedding models through InvokeModel). Each row
 * is one model, so a model id picks the row a request must reach.
 */
export const TEXT_ROWS = [
  'openai',
  'openai-compatible',
  'perplexity',
  'anthropic',
  'gemini',
  'azure-openai',
  'vertex-gemini',
  'vertex-claude',
  'bedrock-converse',
  'bedrock-claude',
] as const;

/** Rows of embedding models: every text API refuses them, before any upstream call. */
export const EMBEDDING_ROWS = ['vertex-embedding', 'bedrock-embedding'] as const;

export const ROWS = [...TEXT_ROWS, ...EMBEDDING_ROWS] as const;

export type TextRow = (typeof TEXT_ROWS)[number];
export type Row = (typeof ROWS)[number];

export const TYPE_OF = {
  openai: 'openai',
  'openai-compatible': 'openai-compatible',
  perplexity: 'perplexity',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'azure-openai': 'azure-openai',
  'vertex-gemini': 'vertex',
  'vertex-claude': 'vertex',
  'bedrock-converse': 'bedrock',
  'bedrock-claude': 'bedrock',
  'vertex-embedding': 'vertex',
  'bedrock-embedding': 'bedrock',
} as const satisfies Record<Row, ProviderType>;

/** Every provider type is some row's, or this fails to compile. */
const everyTypeCovered: Exclude<ProviderType, (typeof TYPE_OF)[Row]> extends never ? true : never = true;
void everyTypeCovered;

/**
 * The wire format a row's upstream speaks for a translated (hub) request: what its streams look
 * like (Gemini sends each function call whole, in one event), where its system prompt goes.
 */
export const HUB_WIRE = {
  openai: 'openai',
  'openai-compatible': 'openai',
  perplexity: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'azure-openai': 'openai',
  'vertex-gemini': 'gemini',
  'vertex-claude': 'anthropic',
  'bedrock-converse': 'converse',
  'bedrock-claude': 'converse',
} as const satisfies Record<TextRow, 'openai' | 'anthropic' | 'gemini' | 'converse'>;

export const MODEL_OF: Readonly<Record<Row, string>> = {
  openai: 'm-openai',
  'openai-compatible': 'm-compat',
  perplexity: 'm-pplx',
  anthropic: 'm-claude',
  gemini: 'm-gemini',
  'azure-openai': 'm-azure',
  'vertex-gemini': 'm-vertex-gemini',
  'vertex-claude': 'm-vertex-claude',
  'bedrock-converse': 'm-bedrock-nova',
  'bedrock-claude': 'm-bedrock-claude',
  'vertex-embedding': 'm-vertex-embedding',
  'bedrock-embedding': 'm-bedrock-embedding',
};

/** Every model of group default. */
export const ALL_MODELS: readonly string[] = Object.values(MODEL_OF);

/**
 * Whether a row serves `/v1/embeddings` (asked for 256 dimensions, answered with the mocks'
 * `mockEmbedding` vectors, logged and charged); the others refuse it with a 400 before any
 * upstream call, as the compatibility table says.
 */
export const EMBEDS: Readonly<Record<Row, boolean>> = {
  openai: true,
  'openai-compatible': true,
  perplexity: false,
  anthropic: false,
  gemini: false,
  'azure-openai': true,
  'vertex-gemini': false,
  'vertex-claude': false,
  'bedrock-converse': false,
  'bedrock-claude': false,
  'vertex-embedding': true,
  'bedrock-embedding': true,
};

/** The Azure deployment (of the mock's default resource) the azure-openai provider serves `m-azure` on. */
export const AZURE_DEPLOYMENT = 'chat-prod';
export const AZURE_API_VERSION = '2024-10-21';
/** The model that deployment runs, which Azure names in its answers. */
export const AZURE_DEPLOYED_MODEL = DEFAULT_AZURE.deployments[AZURE_DEPLOYMENT]!;
/** The env var holding the mock Azure resource's key (`DEFAULT_AZURE.apiKey`). */
const AZURE_KEY_ENV = 'AZURE_MATRIX_API_KEY';

/** The model the gemini provider serves `m-gemini` as, and Vertex `m-vertex-gemini`. */
export const GEMINI_UPSTREAM = 'gemini-2.5-flash';
/** A Claude model of the mock Vertex (`publishers/anthropic`), version suffix and all. */
const VERTEX_CLAUDE_UPSTREAM = 'claude-sonnet-4@20250514';
const VERTEX_PROJECT = 'mock-project';
const VERTEX_LOCATION = 'us-east5';
const VERTEX_MODELS = `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers`;
/** A model that is not Claude, so every client format reaches it through Converse. */
const BEDROCK_NOVA_UPSTREAM = 'amazon.nova-pro-v1:0';
/** A cross-region inference profile of Claude: Messages reach it through InvokeModel. */
const BEDROCK_CLAUDE_UPSTREAM = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const BEDROCK_REGION = 'us-east-1';

/** A row's upstream model, where it is not the model asked: the name a native answer gives. */
export const UPSTREAM_MODEL: Readonly<Partial<Record<Row, string>>> = {
  // A real Gemini id upstream: the mock serves Google's models only, as Google does.
  gemini: GEMINI_UPSTREAM,
  'vertex-gemini': GEMINI_UPSTREAM,
  'vertex-claude': VERTEX_CLAUDE_UPSTREAM,
  'bedrock-converse': BEDROCK_NOVA_UPSTREAM,
  'bedrock-claude': BEDROCK_CLAUDE_UPSTREAM,
  'vertex-embedding': 'text-embedding-005',
  'bedrock-embedding': 'amazon.titan-embed-text-v2:0',
};

const PROVIDER_OF: Readonly<Record<Row, string>> = {
  openai: 'p-openai',
  'openai-compatible': 'p-compat',
  perplexity: 'p-pplx',
  anthropic: 'p-anthropic',
  gemini: 'p-gemini',
  'azure-openai': 'p-azure',
  // One project and location serving every publisher, one account and region every API.
  'vertex-gemini': 'p-vertex',
  'vertex-claude': 'p-vertex',
  'bedrock-converse': 'p-bedrock',
  'bedrock-claude': 'p-bedrock',
  'vertex-embedding': 'p-vertex',
  'bedrock-embedding': 'p-bedrock',
};

const bedrockModelPath = (upstream: string, op: string): string =>
  `/model/${encodeURIComponent(upstream)}/${op}`;

/** The upstream path a row is reached on for a translated (hub), non-stream request. */
export const HUB_PATH: Readonly<Record<TextRow, string>> = {
  openai: '/v1/chat/completions',
  'openai-compatible': '/compat/v1/chat/completions',
  perplexity: '/chat/completions',
  anthropic: '/v1/messages',
  gemini: `/v1beta/models/${GEMINI_UPSTREAM}:generateContent`,
  'azure-openai': `/openai/deployments/${AZURE_DEPLOYMENT}/chat/completions`,
  'vertex-gemini': `${VERTEX_MODELS}/google/models/${GEMINI_UPSTREAM}:generateContent`,
  'vertex-claude': `${VERTEX_MODELS}/anthropic/models/${VERTEX_CLAUDE_UPSTREAM}:rawPredict`,
  'bedrock-converse': bedrockModelPath(BEDROCK_NOVA_UPSTREAM, 'converse'),
  'bedrock-claude': bedrockModelPath(BEDROCK_CLAUDE_UPSTREAM, 'converse'),
};

/** Where a Gemini provider counts tokens upstream (the other rows count at the gateway). */
export const UPSTREAM_COUNT_PATH: Readonly<Partial<Record<Row, string>>> = {
  gemini: `/v1beta/models/${GEMINI_UPSTREAM}:countTokens`,
  'vertex-gemini': `${VERTEX_MODELS}/google/models/${GEMINI_UPSTREAM}:countTokens`,
};

/** Where a Messages client reaches a row natively, stream and not (the other rows translate it). */
export const NATIVE_MESSAGES_PATH: Readonly<Partial<Record<Row, { body: string; stream: string }>>> = {
  anthropic: { body: '/v1/messages', stream: '/v1/messages' },
  'vertex-claude': {
    body: HUB_PATH['vertex-claude'],
    stream: `${VERTEX_MODELS}/anthropic/models/${VERTEX_CLAUDE_UPSTREAM}:streamRawPredict`,
  },
  'bedrock-claude': {
    body: bedrockModelPath(BEDROCK_CLAUDE_UPSTREAM, 'invoke'),
    stream: bedrockModelPath(BEDROCK_CLAUDE_UPSTREAM, 'invoke-with-response-stream'),
  },
};

/** Where the mocks are: the mock provider plays every type but Bedrock, which has its own. */
export interface MockUrls {
  readonly provider: string;
  readonly bedrock: string;
}

export function matrixConfig(urls: MockUrls): GatewayConfigInput {
  const mockUrl = urls.provider;
  const model = (id: string) => ({
    id,
    owned_by: 'mock-provider',
    created: 1767225600,
    pricing: { input_per_million: 1, output_per_million: 2 },
  });
  const served = (row: Row) => {
    const upstream = UPSTREAM_MODEL[row];
    return upstream === undefined ? MODEL_OF[row] : { id: MODEL_OF[row], upstream };
  };
  const provider = (type: ProviderType, base: string) => {
    const rows = ROWS.filter((r) => TYPE_OF[r] === type);
    return {
      id: PROVIDER_OF[rows[0]!],
      type,
      base_url: base,
      models: rows.map(served),
      ...(type === 'anthropic' ? { probe_path: '/v1/models' } : {}),
      ...(type === 'gemini' ? { probe_path: '/v1beta/models' } : {}),
      ...(type === 'azure-openai'
        ? {
            api_key_env: AZURE_KEY_ENV,
            api_version: AZURE_API_VERSION,
            deployments: { [MODEL_OF['azure-openai']]: AZURE_DEPLOYMENT },
          }
        : {}),
      ...(type === 'vertex' ? { project: VERTEX_PROJECT, location: VERTEX_LOCATION } : {}),
      ...(type === 'bedrock' ? { region: BEDROCK_REGION } : {}),
    };
  };
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
      // The mock plays Vertex AI's location endpoint at its root (a Private Service Connect's place).
      provider('vertex', mockUrl),
      // Bedrock Runtime's own mock, at a VPC endpoint's place.
      provider('bedrock', urls.bedrock),
    ],
    models: ALL_MODELS.map(model),
    groups: { default: [...ALL_MODELS] },
  };
}

export interface Matrix {
  readonly gw: Gateway;
  /** The mock Bedrock Runtime endpoint (SigV4 checked, event-stream frames). */
  readonly bedrock: MockBedrock;
  /** The raw API key of group default, for clients built by the spec itself. */
  readonly key: string;
  readonly openai: OpenAI;
  readonly anthropic: Anthropic;
  close(): Promise<void>;
}

/**
 * One gateway and its mocks for a spec file: the mock provider (Vertex's front end trusting the
 * mock Google's tokens), the mock Google issuing them to a service account whose key file is in
 * GOOGLE_APPLICATION_CREDENTIALS, the mock Bedrock verifying SigV4 with the keys in AWS_*.
 * `configFor`: the matrix's config, or one built on it (a spec adding a group of its own).
 */
export async function startMatrix(
  label: string,
  configFor: (urls: MockUrls) => GatewayConfigInput = matrixConfig,
): Promise<Matrix> {
  const [google, bedrock] = await Promise.all([
    startMockGoogle({ projectId: VERTEX_PROJECT }),
    startMockBedrock({ region: BEDROCK_REGION }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  const closeMocks = async (): Promise<void> => {
    await Promise.all([google.close(), bedrock.close()]);
    rmSync(dir, { recursive: true, force: true });
  };
  const keyFile = join(dir, 'service-account.json');
  writeFileSync(keyFile, JSON.stringify(google.newServiceAccount('conformance')));
  let gw: Gateway;
  try {
    gw = await startGateway(label, (mockUrl) => configFor({ provider: mockUrl, bedrock: bedrock.url }), {
      env: {
        [AZURE_KEY_ENV]: DEFAULT_AZURE.apiKey!,
        GOOGLE_APPLICATION_CREDENTIALS: keyFile,
        AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
        AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
      },
      mock: { vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [...google.signingKeys] } },
    });
  } catch (err) {
    await closeMocks();
    throw err;
  }
  const key = await gw.createKey();
  return {
    gw,
    bedrock,
    key: key.raw,
    openai: new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 }),
    async close() {
      await gw.close();
      await closeMocks();
    },
  };
}

/** The request's log row: the provider the model's row implies, success, exact usage and its cost. */
export async function expectLogged(
  gw: Gateway,
  requestId: string,
  expected: {
    endpoint: string;
    row: Row;
    stream: boolean;
    usage: { input: number; output: number };
  },
): Promise<void> {
  const logged = await gw.logRow(requestId);
  expect(logged).toMatchObject({
    endpoint: expected.endpoint,
    model: MODEL_OF[expected.row],
    provider_id: PROVIDER_OF[expected.row],
    status: 200,
    error_code: null,
    stream: expected.stream,
  });
  expect(expected.usage.input).toBeGreaterThan(0);
  expect(Number(logged.input_tokens)).toBe(expected.usage.input);
  expect(Number(logged.output_tokens)).toBe(expected.usage.output);
  expect(Number(logged.cost_nanos)).toBe(expected.usage.input * 1000 + expected.usage.output * 2000);
}

/** The provider a row's requests are logged against. */
export const providerOf = (row: Row): string => PROVIDER_OF[row];

/** Bedrock's paths (`/model/...`) are its own mock's; every other path the mock provider's. */
const isBedrockPath = (path: string): boolean => path.startsWith('/model/');

/** The last request a mock received on a path (the upstream's view of a translated request). */
export function lastUpstream(
  m: Matrix,
  path: string,
): { body: Record<string, unknown>; headers: Record<string, unknown> } {
  const requests: readonly { path: string; body: unknown; headers: unknown }[] = isBedrockPath(path)
    ? m.bedrock.requests
    : m.gw.mock.requests;
  const req = requests.filter((r) => r.path === path).at(-1);
  if (!req) throw new Error(`no upstream request on ${path}`);
  return { body: req.body as Record<string, unknown>, headers: req.headers as Record<string, unknown> };
}

/** How many requests a mock received on a path so far (the mock provider's probes are GETs elsewhere). */
export function upstreamCount(m: Matrix, path: string): number {
  if (isBedrockPath(path)) return m.bedrock.requests.filter((r) => r.path === path).length;
  return m.gw.mock.stats.byPath[path] ?? 0;
}

/**
 * A counter of the calls (POSTs: probes are GETs) both mocks receive from now on, whatever the
 * path: what a refusal "before any upstream call" is checked with.
 */
export function upstreamCallsFrom(m: Matrix): () => number {
  const since = Date.now();
  const bedrockFrom = m.bedrock.requests.length;
  return () =>
    m.gw.mock.requests.filter((r) => r.method === 'POST' && r.receivedAt >= since).length +
    m.bedrock.requests.slice(bedrockFrom).filter((r) => r.method === 'POST').length;
}

/** The gateway's words for a model none of whose providers serves a client API (a 400 naming `model`). */
export const cannotServe = (row: Row, endpoint: string): string =>
  `The providers of the model \`${MODEL_OF[row]}\` cannot serve ${endpoint}.`;

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
