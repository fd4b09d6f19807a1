import { type CompatibleVendor } from './settings.js';
import { type ProviderFormat } from '../src/translation.js';
import { type OpenAIChatProfile, openAIChatFormat } from '../openai/index.js';

export interface OpenAICompatibleOptions extends OpenAIChatProfile {
  /** The vendor, for logs and errors (e.g. 'deepseek'). */
  readonly name: string;
}

/** A provider format plus the vendor it was built for. */
export interface OpenAICompatibleFormat extends ProviderFormat {
  readonly vendor: string;
}

/**
 * Fields OpenAI's chat API has that the common OpenAI-compatible servers do not: `metadata` is
 * tied to OpenAI's stored completions. The output limit goes as `max_tokens`, the name every
 * compatible server reads (DeepSeek and older Ollama read no other).
 */
const COMMON: Required<Pick<OpenAIChatProfile, 'omit' | 'maxTokensParam'>> = {
  omit: ['metadata'],
  maxTokensParam: 'max_tokens',
};

/**
 * An OpenAI-compatible vendor, by composition: the OpenAI-chat format with a vendor profile
 * (fields to omit, defaults, whether hub extensions are sent). Adding a vendor is one call.
 */
export function openAICompatible(options: OpenAICompatibleOptions): OpenAICompatibleFormat {
  const { name, omit = [], defaults, keepHubExtensions, maxTokensParam } = options;
  return {
    ...openAIChatFormat({
      omit: [...new Set([...COMMON.omit, ...omit])],
      maxTokensParam: maxTokensParam ?? COMMON.maxTokensParam,
      ...(defaults && { defaults }),
      ...(keepHubExtensions !== undefined && { keepHubExtensions }),
    }),
    vendor: name,
  };
}

/** Known vendor profiles, chosen per provider by `vendor:` in the config; generic when none is named. */
export const OPENAI_COMPATIBLE_VENDORS = {
  /** vLLM, Ollama, LM Studio, LiteLLM and other OpenAI-compatible servers. */
  generic: { name: 'openai-compatible' },
  /** DeepSeek answers 400 when `reasoning_content` is sent back: hub extensions stay stripped. */
  deepseek: { name: 'deepseek' },
  /** Groq answers 400 to `logprobs`, `top_logprobs` and `logit_bias`, and reads `max_completion_tokens`. */
  groq: {
    name: 'groq',
    omit: ['logprobs', 'top_logprobs', 'logit_bias'],
    maxTokensParam: 'max_completion_tokens',
  },
} as const satisfies Record<CompatibleVendor, OpenAICompatibleOptions>;

/** One format per vendor profile, built once. */
export const openAICompatibleFormats: Readonly<Record<CompatibleVendor, OpenAICompatibleFormat>> = {
  generic: openAICompatible(OPENAI_COMPATIBLE_VENDORS.generic),
  deepseek: openAICompatible(OPENAI_COMPATIBLE_VENDORS.deepseek),
  groq: openAICompatible(OPENAI_COMPATIBLE_VENDORS.groq),
};

/** The format for provider type `openai-compatible` when no vendor profile is named. */
export const openAICompatibleProvider: OpenAICompatibleFormat = openAICompatibleFormats.generic;
