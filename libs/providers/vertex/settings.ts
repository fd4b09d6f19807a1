import { z } from 'zod';
import { type Entry } from '../src/descriptor.js';

/** A required setting's message names the type and what to set. */
const required = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `required for type vertex (${what})` : undefined;

export const vertexSettings = {
  project: z
    .string({ error: required('the Google Cloud project ID') })
    .regex(
      /^(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
      'a Google Cloud project ID such as my-project-123 (not its number or name)',
    )
    .meta({ title: 'Project', description: 'The Google Cloud project ID.' }),
  location: z
    .string({ error: required('us-east5, europe-west1, global...') })
    .regex(/^[a-z][a-z0-9-]{0,40}$/, 'a Vertex AI location such as us-east5 or global')
    .meta({
      title: 'Location',
      description: 'A Vertex AI location such as us-east5, europe-west1 or global.',
    }),
};

export type VertexEntry = Entry<typeof vertexSettings>;

/**
 * Vertex AI's public endpoint for a location, as Google's SDKs place it: `{location}-aiplatform`,
 * `aiplatform` for `global`, `aiplatform.{location}.rep` for the multi-regions `us` and `eu`.
 */
export function vertexBaseUrl(location: string): string {
  if (location === 'global') return 'https://aiplatform.googleapis.com';
  if (location === 'us' || location === 'eu') return `https://aiplatform.${location}.rep.googleapis.com`;
  return `https://${location}-aiplatform.googleapis.com`;
}
