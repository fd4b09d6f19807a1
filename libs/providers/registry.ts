import { PROVIDER_TYPES, type ProviderType } from '#libs/config';
import { azureOpenAIAdapter } from './azure-openai/index.js';
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
 * changes), `translated` goes client format -> hub -> the provider's hub format, `none` skips it.
 */
export type Serving = 'native' | 'translated' | 'none';

export function servingOf(api: ClientApi, type: ProviderType): Serving {
  const adapter = PROVIDER_ADAPTERS[type];
  if (adapter.native[api.name] !== undefined) return 'native';
  return api.hub === null || adapter.none.includes(api.name) ? 'none' : 'translated';
}

/** The provider types that can serve a client API one way or the other. */
export function providerTypesServing(api: ClientApi): readonly ProviderType[] {
  return PROVIDER_TYPES.filter((type) => servingOf(api, type) !== 'none');
}
