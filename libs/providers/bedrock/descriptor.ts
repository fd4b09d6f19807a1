import { defineProvider } from '../src/descriptor.js';
import { bedrockAdapter } from './adapter.js';
import { deferredAuth } from '../src/deferred-auth.js';
import { bedrockBaseUrl, bedrockSettings } from './settings.js';

/** Amazon Bedrock: a Bedrock API key, or else the AWS credential chain with every request signed. */
export const bedrockDescriptor = defineProvider({
  type: 'bedrock',
  label: 'Amazon Bedrock',
  settings: bedrockSettings,
  baseUrl: (entry) => bedrockBaseUrl(entry.region),
  probe: {
    refusePath:
      'type bedrock probes ListFoundationModels on its control plane (set control_plane_url to move it), not a path',
  },
  keys: true,
  // Bedrock API keys, in the variable AWS's SDKs read them from.
  keyVars: ['AWS_BEARER_TOKEN_BEDROCK'],
  ambient: {
    platform: 'aws',
    identity: 'AWS',
    envVars: {
      names: [
        'AWS_ACCESS_KEY_ID',
        'AWS_SECRET_ACCESS_KEY',
        'AWS_SESSION_TOKEN',
        'AWS_PROFILE',
        'AWS_WEB_IDENTITY_TOKEN_FILE',
        'AWS_ROLE_ARN',
      ],
      prefixes: ['AWS_CONTAINER_'],
    },
    label: {
      short: 'AWS credentials (SigV4)',
      long: 'AWS credentials of the apps’ environment, each request signed (SigV4)',
    },
    build: (entry, vars, options) =>
      deferredAuth(async () => {
        const { awsIdentity, SigV4Auth } = await import('./credential.js');
        return new SigV4Auth(awsIdentity(vars), entry.region, options);
      }),
  },
  // The probe's control plane, when set apart (its default is derived from the base URL).
  credentialUrls: (entry) => [entry.control_plane_url],
  adapter: bedrockAdapter,
  catalog: (_entry, model) => ({ where: { providerId: 'aws' }, id: model, countsWebSearches: true }),
  genAiName: () => 'bedrock',
});
