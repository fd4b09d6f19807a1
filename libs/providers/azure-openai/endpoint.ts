import { type ProviderEndpoint, type ProviderSettings } from '../src/adapter.js';
import { OPENAI_PATHS } from '../openai/index.js';
import { type AzureEntry } from './settings.js';

/**
 * Azure OpenAI's two URL styles, from the OpenAI paths the routes and the hub format give:
 *
 * - deployments (`deployments` set): `/openai/deployments/{deployment}/chat/completions?api-version=X`,
 *   the same for completions and embeddings; the Responses API is not deployment-scoped
 *   (`/openai/responses?api-version=X`, the deployment as the body's `model`), and the model list
 *   is `/openai/models?api-version=X`. Every body names the deployment: Azure reads it for
 *   Responses and ignores it elsewhere.
 * - v1 (no `deployments`): `/openai/v1/...` with the model in the body, and `?api-version=` only
 *   when one is configured (`preview`).
 */
export function azureEndpoint(settings: ProviderSettings): ProviderEndpoint {
  const { deployments, api_version: version } = settings as AzureEntry;
  if (deployments === undefined) {
    const query = version === undefined ? '' : `?api-version=${encodeURIComponent(version)}`;
    return { model: (m) => m, path: (path) => `/openai/v1${path}${query}` };
  }
  const query = `?api-version=${encodeURIComponent(version ?? '')}`;
  const deploymentOf = (model: string): string => {
    // The config refuses a served model without a deployment (providers[i].deployments).
    const name = Object.hasOwn(deployments, model) ? deployments[model] : undefined;
    if (name === undefined) throw new Error(`no Azure deployment for model ${model}`);
    return name;
  };
  return {
    model: deploymentOf,
    path(path, upstreamModel) {
      if (path === OPENAI_PATHS.responses || path === OPENAI_PATHS.models) return `/openai${path}${query}`;
      return `/openai/deployments/${encodeURIComponent(deploymentOf(upstreamModel))}${path}${query}`;
    },
  };
}
