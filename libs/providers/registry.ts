import { PROVIDER_TYPES, type ProviderType } from '#libs/config';
import { azureOpenAIAdapter } from './azure-openai/index.js';
import { bedrockAdapter } from './bedrock/index.js';
import { anthropicAdapter, anthropicModelsApi, countTokensApi, messagesApi } from './anthropic/index.js';
import { countContentTokensApi, geminiAdapter, geminiModelsApi, generateContentApi } from './gemini/index.js';
import {
  chatApi,
  completionsApi,
  embeddingsApi,
  openAIAdapter,
  openAIModelsApi,
  responsesApi,
} from './openai/index.js';
import { openAICompatibleAdapter } from './openai-compatible/index.js';
import { perplexityAdapter } from './perplexity/index.js';
import { vertexAdapter } from './vertex/index.js';
import {
  type ClientApi,
  type ClientApiName,
  type ErrorShape,
  type ModelsApi,
  type ProviderAdapter,
} from './src/adapter.js';

/**
 * The one place vendor folders are wired in: provider types and client APIs to their adapters.
 * Adding a vendor is its folder plus a line here.
 */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderType, ProviderAdapter>> = {
  openai: openAIAdapter,
  'openai-compatible': openAICompatibleAdapter,
  perplexity: perplexityAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  'azure-openai': azureOpenAIAdapter,
  vertex: vertexAdapter,
  bedrock: bedrockAdapter,
};

export const CLIENT_APIS = {
  chat: chatApi,
  completions: completionsApi,
  responses: responsesApi,
  embeddings: embeddingsApi,
  messages: messagesApi,
  count_tokens: countTokensApi,
  generate_content: generateContentApi,
  count_content_tokens: countContentTokensApi,
} as const satisfies Readonly<Record<ClientApiName, ClientApi>>;

/** The Models APIs, by the client shape `#libs/protocol`'s `clientFormatOf` tells from the request. */
export const MODELS_APIS: Readonly<Record<ErrorShape, ModelsApi>> = {
  openai: openAIModelsApi,
  anthropic: anthropicModelsApi,
  google: geminiModelsApi,
};

/**
 * How a provider serves one client API: `native` passes the body through (only the model
 * changes), `translated` goes client format -> hub -> the provider's hub format (or through the
 * adapter's own `direct` translator, for an API the hub cannot carry), `none` skips it.
 */
export type Serving = 'native' | 'translated' | 'none';

export function servingOf(api: ClientApi, type: ProviderType, upstreamModel?: string): Serving {
  const adapter = PROVIDER_ADAPTERS[type];
  if (adapter.models === undefined) return servingBy(api, adapter);
  if (upstreamModel !== undefined) return servingBy(api, adapter.models.of(upstreamModel));
  // No model named: the best way any of its models is served.
  const ways = Object.values(adapter.models.byLabel).map((a) => servingBy(api, a));
  return ways.includes('native') ? 'native' : ways.includes('translated') ? 'translated' : 'none';
}

function servingBy(api: ClientApi, adapter: ProviderAdapter): Serving {
  if (adapter.native[api.name] !== undefined) return 'native';
  if (adapter.direct?.[api.name] !== undefined) return 'translated';
  return api.hub === null || adapter.none.includes(api.name) ? 'none' : 'translated';
}

/** The adapter a provider of `type` reads one upstream model's requests through. */
export function adapterOf(type: ProviderType, upstreamModel: string): ProviderAdapter {
  const adapter = PROVIDER_ADAPTERS[type];
  return adapter.models === undefined ? adapter : adapter.models.of(upstreamModel);
}

/** The provider types that can serve a client API one way or the other. */
export function providerTypesServing(api: ClientApi): readonly ProviderType[] {
  return PROVIDER_TYPES.filter((type) => servingOf(api, type) !== 'none');
}

/** A column of the capability table: a provider type, or one kind of model of a type hosting several. */
export interface ServingColumn {
  readonly label: string;
  serving(api: ClientApi): Serving;
}

export function servingColumns(): readonly ServingColumn[] {
  return PROVIDER_TYPES.flatMap((type): ServingColumn[] => {
    const models = PROVIDER_ADAPTERS[type].models;
    if (models === undefined) return [{ label: `\`${type}\``, serving: (api) => servingOf(api, type) }];
    return Object.entries(models.byLabel).map(([label, adapter]) => ({
      label: `\`${type}\` ${label}`,
      serving: (api) => servingBy(api, adapter),
    }));
  });
}
