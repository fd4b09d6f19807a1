import { type ProviderEndpoint, type ProviderSettings } from '../src/adapter.js';
import { type VertexEntry } from './settings.js';

/** The `anthropic_version` Claude on Vertex AI takes in the body (not the header Anthropic's API reads). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** The scope of the access tokens Vertex AI takes. */
export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The publishers whose models the `vertex` type serves, each in its own wire format. */
export type VertexPublisher = 'google' | 'anthropic';

/**
 * Which publisher an upstream model belongs to: Claude models (`claude-sonnet-4@20250514`) are
 * Anthropic's on Vertex AI, every other model Google's (Gemini, Gemma). The rule is the model ID's
 * because Vertex's own URLs are (`publishers/{publisher}/models/{model}`) and both publishers
 * name their models that way; a provider can then serve Claude and Gemini models at once.
 */
export function publisherOf(upstreamModel: string): VertexPublisher {
  return upstreamModel.startsWith('claude-') ? 'anthropic' : 'google';
}

/**
 * Vertex AI's public endpoint for a location (the config's default `base_url` of a `vertex`
 * provider; a Private Service Connect endpoint is configured as `base_url` instead).
 */
export { vertexBaseUrl } from './settings.js';

/**
 * A model in a Vertex path: its version suffix (`@20250514`) stays as Google writes it, anything
 * else that is not safe in a path segment is escaped.
 */
const segment = (model: string): string => encodeURIComponent(model).replaceAll('%40', '@');

/**
 * The publisher-relative paths the routes and formats give (the endpoint puts the project and
 * location in front): Gemini's `generateContent`, `streamGenerateContent?alt=sse`,
 * `countTokens`; Claude's `rawPredict`, `streamRawPredict`, and its token counting, which is a
 * model of its own (`count-tokens`) that names the counted model in the body; the text embedding
 * models' `predict`.
 */
export const vertexPaths = {
  generate: (model: string) => `/publishers/google/models/${segment(model)}:generateContent`,
  stream: (model: string) => `/publishers/google/models/${segment(model)}:streamGenerateContent?alt=sse`,
  countTokens: (model: string) => `/publishers/google/models/${segment(model)}:countTokens`,
  rawPredict: (model: string, stream: boolean) =>
    `/publishers/anthropic/models/${segment(model)}:${stream ? 'streamRawPredict' : 'rawPredict'}`,
  anthropicCountTokens: '/publishers/anthropic/models/count-tokens:rawPredict',
  predict: (model: string) => `/publishers/google/models/${segment(model)}:predict`,
} as const;

/**
 * Where a `vertex` provider takes requests: every path under its project and location
 * (`/v1/projects/{project}/locations/{location}`), relative to its base URL (the location's
 * endpoint, or a Private Service Connect one). The model is sent as configured.
 */
export function vertexEndpoint(settings: ProviderSettings): ProviderEndpoint {
  const { project, location } = settings as Partial<VertexEntry>;
  // The config refuses a vertex provider without them (providers[i].project / .location).
  if (!project || !location) throw new Error('a vertex provider needs a project and a location');
  const prefix = `/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
  return { model: (m) => m, path: (path) => `${prefix}${path}` };
}
