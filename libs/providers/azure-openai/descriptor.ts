import { defineProvider } from '../src/descriptor.js';
import { azureOpenAIAdapter } from './adapter.js';
import { deferredAuth } from '../src/deferred-auth.js';
import { azureSettings, checkAzureEntry } from './settings.js';

/** Azure OpenAI: OpenAI's wire on Azure's URLs; a key, or else Microsoft Entra ID. */
export const azureOpenAIDescriptor = defineProvider({
  type: 'azure-openai',
  label: 'Azure OpenAI',
  settings: azureSettings,
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  ambient: {
    platform: 'entra-id',
    identity: 'Microsoft Entra ID',
    envVars: {
      names: [
        'AZURE_CLIENT_ID',
        'AZURE_CLIENT_SECRET',
        'AZURE_TENANT_ID',
        'AZURE_USERNAME',
        'AZURE_PASSWORD',
        'AZURE_FEDERATED_TOKEN_FILE',
      ],
      prefixes: ['AZURE_CLIENT_CERTIFICATE'],
    },
    label: { short: 'Entra ID', long: 'Microsoft Entra ID (the apps’ environment or managed identity)' },
    build: (_entry, vars, options) =>
      deferredAuth(async () => {
        const { entraAuth, entraCredential } = await import('./credential.js');
        return entraAuth(entraCredential(vars), options);
      }),
  },
  check: checkAzureEntry,
  adapter: azureOpenAIAdapter,
  catalog: (_entry, model) => ({ where: { providerId: 'azure' }, id: model, countsWebSearches: false }),
  genAiName: () => 'azure-openai',
});
