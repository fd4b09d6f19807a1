import { defineProvider } from '../src/descriptor.js';
import { vertexAdapter } from './adapter.js';
import { deferredAuth } from '../src/deferred-auth.js';
import { publisherOf } from './endpoint.js';
import { vertexBaseUrl, vertexSettings } from './settings.js';

/** Vertex AI: Gemini and Claude under a project and location, with Google's credentials only. */
export const vertexDescriptor = defineProvider({
  type: 'vertex',
  label: 'Vertex AI',
  settings: vertexSettings,
  // Its location's endpoint; a Private Service Connect endpoint is set as `base_url`.
  baseUrl: (entry) => vertexBaseUrl(entry.location),
  probe: 'path',
  keys: {
    refusal:
      'type vertex authenticates with Google credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server), not a key',
  },
  ambient: {
    platform: 'google',
    identity: 'Google Cloud',
    envVars: { names: ['GOOGLE_APPLICATION_CREDENTIALS'], prefixes: ['GOOGLE_CLOUD_'] },
    label: {
      short: 'Google credentials',
      long: 'Google credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server)',
    },
    build: (_entry, vars, options) =>
      deferredAuth(async () => {
        const { googleAuth, googleAuthClient } = await import('./credential.js');
        return googleAuth(() => googleAuthClient(vars), options);
      }),
  },
  adapter: vertexAdapter,
  // The catalog knows Vertex's Claude as Anthropic's models (`claude-x@date` as `claude-x-date`),
  // at Anthropic's global prices: a regional location adds Vertex's premium.
  catalog: (entry, model) =>
    publisherOf(model) === 'anthropic'
      ? {
          where: { providerId: 'anthropic' },
          id: model.replace('@', '-'),
          countsWebSearches: true,
          premium: { scheme: 'vertex-claude', location: entry.location },
        }
      : { where: { providerId: 'google' }, id: model, countsWebSearches: true },
  genAiName: () => 'vertex',
});
