import { z } from 'zod';
import { modelId } from '#libs/config';
import { type Entry } from '../src/descriptor.js';

export const azureSettings = {
  api_version: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,40}$/, 'an api-version such as 2024-10-21 or preview')
    .optional()
    .meta({
      title: 'API version',
      description:
        'The api-version query parameter (required with deployments; v1 URLs take none or preview).',
    }),
  deployments: z
    .record(modelId, z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a deployment name'))
    .optional()
    .meta({
      title: 'Deployments',
      description:
        'Upstream model ID -> deployment name, for the deployments URLs; absent: the v1 URLs with the model in the body.',
    }),
};

export type AzureEntry = Entry<typeof azureSettings>;

/** `deployments` needs an `api_version`, and every served model a deployment (else a request reaches none). */
export function checkAzureEntry(entry: AzureEntry, issue: (field: string, message: string) => void): void {
  if (entry.deployments === undefined) return;
  if (entry.api_version === undefined)
    issue('api_version', 'required with deployments (the deployments URLs take an api-version)');
  for (const m of entry.models)
    if (!Object.hasOwn(entry.deployments, m.upstream))
      issue('deployments', `no deployment for the served model ${m.upstream}`);
}
