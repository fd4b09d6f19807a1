import { type ProviderConfig, type ProviderType } from '#libs/config';
import {
  anthropic,
  openai,
  openaiCompatible,
  perplexity,
  type ClientFormat,
  type ProviderFormat,
} from '#libs/providers';

/**
 * The one place the edge wires translators in: client formats by name, and the provider format
 * that reaches each provider type from the hub.
 */
export type ClientFormatName = ClientFormat['name'];

export const clientFormats: Partial<Record<ClientFormatName, ClientFormat>> = {
  chat: openai.chatClient,
  completions: openai.completionsClient,
  responses: openai.responsesClient,
  messages: anthropic.messagesClient,
};

export const providerFormats: Partial<Record<ProviderType, ProviderFormat>> = {
  openai: openai.openAIChatProvider,
  'openai-compatible': openaiCompatible.openAICompatibleProvider,
  perplexity: perplexity.perplexityProvider,
  anthropic: anthropic.anthropicProvider,
};

/** The format that reaches this provider from the hub: its type's, or its vendor profile's. */
export function providerFormatOf(
  provider: Pick<ProviderConfig, 'type' | 'vendor'>,
): ProviderFormat | undefined {
  if (provider.type === 'openai-compatible')
    return openaiCompatible.openAICompatibleFormats[provider.vendor ?? 'generic'];
  return providerFormats[provider.type];
}
