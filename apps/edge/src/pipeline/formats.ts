import { type ProviderType } from '#libs/config';
import { anthropic, openai, type ClientFormat, type ProviderFormat } from '#libs/providers';

/**
 * The one place the edge wires translators in: client formats by name, and the provider format
 * that reaches each provider type from the hub.
 */
export type ClientFormatName = ClientFormat['name'];

export const clientFormats: Partial<Record<ClientFormatName, ClientFormat>> = {
  chat: openai.chatClient,
  responses: openai.responsesClient,
};

export const providerFormats: Partial<Record<ProviderType, ProviderFormat>> = {
  openai: openai.openAIChatProvider,
  'openai-compatible': openai.openAIChatProvider,
  perplexity: openai.openAIChatProvider,
  anthropic: anthropic.anthropicProvider,
};
