import { type ProviderAdapter } from '../src/adapter.js';
import { type ProviderFormat } from '../src/translation.js';
import { geminiContextExceeded } from './context-window.js';
import { countTokensRoute, generateContentRoute } from './native.js';
import { geminiRequestOf } from './request.js';
import { geminiErrorMessage, hubCompletionOfGemini } from './response.js';
import { geminiStreamToHub } from './stream.js';
import { geminiWire } from './wire-format.js';

/** An OpenAI- or Anthropic-format client (through the hub) served by Google's Gemini API. */
export const geminiProvider: ProviderFormat = {
  name: 'gemini',
  wire: geminiWire,
  fromHub: geminiRequestOf,
  toHub: hubCompletionOfGemini,
  streamToHub: geminiStreamToHub,
  errorMessage: geminiErrorMessage,
};

/**
 * Provider type `gemini` (Google AI Studio's API, `https://generativelanguage.googleapis.com`):
 * generateContent and countTokens natively, every other text API through the hub; no
 * embeddings (Google's embedContent is not OpenAI's shape). Auth is the `x-goog-api-key` header.
 */
export const geminiAdapter: ProviderAdapter = {
  native: { generate_content: generateContentRoute, count_content_tokens: countTokensRoute },
  none: ['embeddings'],
  hubFormat: () => geminiProvider,
  upstreamHeaders(apiKey) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey) headers['x-goog-api-key'] = apiKey;
    return headers;
  },
  // Google answers a key it does not know with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
  refusesCredentials: (status, body) => status === 400 && body.includes('API_KEY_INVALID'),
  contextExceeded: geminiContextExceeded,
};
