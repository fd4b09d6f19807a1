import { type PlatformEnv, type ProviderConfig, type ProviderEntrySchema } from '#libs/config';
import type { CatalogLookup } from '#libs/price-catalog';
import { azureOpenAIDescriptor } from './azure-openai/index.js';
import { bedrockDescriptor } from './bedrock/index.js';
import { anthropicDescriptor, anthropicModelsApi, countTokensApi, messagesApi } from './anthropic/index.js';
import {
  countContentTokensApi,
  geminiDescriptor,
  geminiModelsApi,
  generateContentApi,
} from './gemini/index.js';
import {
  chatApi,
  completionsApi,
  embeddingsApi,
  openAIDescriptor,
  openAIModelsApi,
  realtimeProtocol,
  responsesApi,
} from './openai/index.js';
import { openAICompatibleDescriptor } from './openai-compatible/index.js';
import { perplexityDescriptor } from './perplexity/index.js';
import { vertexDescriptor } from './vertex/index.js';
import {
  type ClientApi,
  type ClientApiName,
  type ErrorShape,
  type ModelsApi,
  type ProviderAdapter,
} from './src/adapter.js';
import { type ProviderDescriptor } from './src/descriptor.js';
import { type RealtimeProtocol } from './src/realtime.js';
import { ambientCredentialOf } from './src/ambient-credential.js';
import { providerEntrySchema } from './src/provider-entry.js';

/**
 * The one place vendor folders are wired in: the provider types' descriptors, and the client APIs.
 * Adding a provider type is its folder plus a line here.
 */
export const PROVIDER_DESCRIPTORS = [
  openAIDescriptor,
  openAICompatibleDescriptor,
  perplexityDescriptor,
  anthropicDescriptor,
  geminiDescriptor,
  azureOpenAIDescriptor,
  vertexDescriptor,
  bedrockDescriptor,
] as const satisfies readonly ProviderDescriptor[];

export type ProviderType = (typeof PROVIDER_DESCRIPTORS)[number]['type'];
export const PROVIDER_TYPES: readonly ProviderType[] = PROVIDER_DESCRIPTORS.map((d) => d.type);

/**
 * Provider types registered besides those listed above, from a folder outside this lib (a
 * deployment's own, or a test's fixture), before the registry is first used: the configuration's
 * schema, the console's form and the apps read the list once, when they start.
 */
const registered: ProviderDescriptor[] = [];
let sealed: {
  readonly all: readonly ProviderDescriptor[];
  readonly byType: ReadonlyMap<string, ProviderDescriptor>;
} | null = null;

export function registerProviderType(descriptor: ProviderDescriptor): void {
  if (sealed !== null)
    throw new Error(`provider type ${descriptor.type}: register provider types before the apps start`);
  if ([...PROVIDER_DESCRIPTORS, ...registered].some((d) => d.type === descriptor.type))
    throw new Error(`provider type ${descriptor.type} is already registered`);
  registered.push(descriptor);
}

function registry(): NonNullable<typeof sealed> {
  if (sealed === null) {
    const all = [...PROVIDER_DESCRIPTORS, ...registered];
    sealed = { all, byType: new Map(all.map((d) => [d.type, d])) };
  }
  return sealed;
}

/** Every provider type the configuration admits: the registry's own, then those registered. */
export function providerDescriptors(): readonly ProviderDescriptor[] {
  return registry().all;
}

/** The descriptor of a provider type; the configuration's schema admits no other type. */
export function descriptorOf(type: string): ProviderDescriptor {
  const descriptor = registry().byType.get(type);
  if (descriptor === undefined) throw new Error(`unknown provider type ${type}`);
  return descriptor;
}

/** The adapters of the registry's own types, by type. */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderType, ProviderAdapter>> = Object.fromEntries(
  PROVIDER_DESCRIPTORS.map((d) => [d.type, d.adapter]),
) as Record<ProviderType, ProviderAdapter>;

let entrySchema: ProviderEntrySchema | null = null;

/** The configuration's provider entry: a discriminated union on `type`, one member per descriptor. */
export function providerEntrySchemaOfRegistry(): ProviderEntrySchema {
  return (entrySchema ??= providerEntrySchema(providerDescriptors()));
}

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

/** The realtime protocol clients speak at `/v1/realtime` (a WebSocket session; src/realtime.ts). */
export const REALTIME_PROTOCOL: RealtimeProtocol = realtimeProtocol;

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

export function servingOf(api: ClientApi, type: string, upstreamModel?: string): Serving {
  const adapter = descriptorOf(type).adapter;
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
export function adapterOf(type: string, upstreamModel: string): ProviderAdapter {
  const adapter = descriptorOf(type).adapter;
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
    const models = descriptorOf(type).adapter.models;
    if (models === undefined) return [{ label: `\`${type}\``, serving: (api) => servingOf(api, type) }];
    return Object.entries(models.byLabel).map(([label, adapter]) => ({
      label: `\`${type}\` ${label}`,
      serving: (api) => servingBy(api, adapter),
    }));
  });
}

/** The credential a provider needs besides a static key, as its type's descriptor builds it (or null). */
export const ambientCredential = ambientCredentialOf(descriptorOf);

/** Where the price catalog knows an upstream model of a provider, as its type's descriptor says. */
export function catalogLookupOf(provider: ProviderConfig, upstreamModel: string): CatalogLookup {
  return descriptorOf(provider.type).catalog(provider, upstreamModel);
}

/** The profile a provider's requests are translated by, for a type with several; else null. */
export function profileOf(provider: ProviderConfig): string | null {
  return descriptorOf(provider.type).profile?.(provider) ?? null;
}

/** What the provider types say of the environment, for `readEnv` (libs/config). */
export function platformEnv(): PlatformEnv {
  const all = providerDescriptors();
  return {
    keyVars: all.flatMap((d) => d.keyVars ?? []),
    chainNames: all.flatMap((d) => d.ambient?.envVars.names ?? []),
    chainPrefixes: all.flatMap((d) => d.ambient?.envVars.prefixes ?? []),
  };
}
