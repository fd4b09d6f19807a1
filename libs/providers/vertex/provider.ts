import { type ProviderFormat } from '../src/translation.js';
import { anthropicProvider } from '../anthropic/index.js';
import { geminiProvider } from '../gemini/index.js';
import { vertexPaths } from './endpoint.js';
import { rawPredictBody } from './native.js';

/**
 * Google's error body (`{"error": {"code", "message", "status"}}`, sometimes in a one-element
 * list): what Vertex's front end answers for either publisher (a refused token, a quota).
 */
const googleErrorMessage = geminiProvider.errorMessage;

/** The hub reaches a Gemini model on Vertex as AI Studio's, on Vertex's path. */
export const vertexGeminiProvider: ProviderFormat = {
  ...geminiProvider,
  name: 'vertex-gemini',
  fromHub(req, upstreamModel, adjust) {
    const up = geminiProvider.fromHub(req, upstreamModel, adjust);
    const path =
      req.stream === true ? vertexPaths.stream(upstreamModel) : vertexPaths.generate(upstreamModel);
    return { ...up, path };
  },
};

/**
 * The hub reaches a Claude model on Vertex as Anthropic's API, with Vertex's differences: the
 * model in the path, the stream flag choosing `streamRawPredict`, the version in the body (no
 * `anthropic-version` header). Errors come in Anthropic's shape from the model, in Google's from
 * Vertex's front end.
 */
export const vertexAnthropicProvider: ProviderFormat = {
  ...anthropicProvider,
  name: 'vertex-anthropic',
  fromHub(req, upstreamModel, adjust) {
    const up = anthropicProvider.fromHub(req, upstreamModel, adjust);
    const { 'anthropic-version': _version, ...headers } = up.headers;
    return {
      path: vertexPaths.rawPredict(upstreamModel, up.body.stream === true),
      body: rawPredictBody(up.body),
      headers,
    };
  },
  errorMessage: (body) => anthropicProvider.errorMessage(body) ?? googleErrorMessage(body),
};
