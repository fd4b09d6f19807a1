import { type RealtimeRoute } from '../src/realtime.js';
import { realtimeBeta } from '../openai/index.js';
import { type AzureEntry } from './settings.js';

/**
 * Azure OpenAI's realtime sessions, in its two URL styles (as `endpoint.ts` for HTTP):
 *
 * - deployments: `/openai/realtime?api-version=X&deployment=D` (the preview API's URL);
 * - v1 (no `deployments`): `/openai/v1/realtime?model=M` (the GA URL the SDK's `azure()` opens),
 *   with `api-version` only when one is configured.
 *
 * The key goes in Azure's `api-key` header; without one (Microsoft Entra ID) the provider's
 * credential adds `Authorization: Bearer` to the handshake.
 */
export const azureRealtimeRoute: RealtimeRoute = {
  path(upstreamModel, settings) {
    const { deployments, api_version: version } = settings as AzureEntry;
    if (deployments === undefined) {
      const query = version === undefined ? '' : `&api-version=${encodeURIComponent(version)}`;
      return `/openai/v1/realtime?model=${encodeURIComponent(upstreamModel)}${query}`;
    }
    return `/openai/realtime?api-version=${encodeURIComponent(version ?? '')}&deployment=${encodeURIComponent(deploymentOf(deployments, upstreamModel))}`;
  },
  headers(apiKey, client) {
    const headers: Record<string, string> = {};
    if (apiKey) headers['api-key'] = apiKey;
    const beta = realtimeBeta(client);
    if (beta !== undefined) headers['openai-beta'] = beta;
    return headers;
  },
  eventModel(upstreamModel, settings) {
    const { deployments } = settings as AzureEntry;
    return deployments === undefined ? upstreamModel : deploymentOf(deployments, upstreamModel);
  },
};

function deploymentOf(deployments: Readonly<Record<string, string>>, model: string): string {
  // The config refuses a served model without a deployment (providers[i].deployments).
  const name = Object.hasOwn(deployments, model) ? deployments[model] : undefined;
  if (name === undefined) throw new Error(`no Azure deployment for model ${model}`);
  return name;
}
