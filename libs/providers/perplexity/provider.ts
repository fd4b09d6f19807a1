import { openAICompatible, type OpenAICompatibleFormat } from '../openai-compatible/index.js';
import { perplexityRequest } from './request.js';

/**
 * Perplexity's Sonar chat API, composed on the OpenAI-compatible format. Its answer fields
 * (`citations`, `search_results`, `related_questions`, `images`) and request extras
 * (`search_domain_filter`, `return_images`, `web_search_options`...) pass through untouched:
 * the OpenAI-chat format keeps fields it does not know. `stream_options` is not sent: Sonar
 * puts usage on every chunk, which the stream transform already collects.
 */
const base = openAICompatible({ name: 'perplexity', omit: ['stream_options', 'parallel_tool_calls'] });

export const perplexityProvider: OpenAICompatibleFormat = {
  ...base,
  fromHub: (req, upstreamModel, adjust) => base.fromHub(perplexityRequest(req), upstreamModel, adjust),
};
