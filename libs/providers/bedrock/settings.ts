import { z } from 'zod';
import { serviceUrl } from '#libs/config';
import { type Entry } from '../src/descriptor.js';

export const bedrockSettings = {
  region: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'required for type bedrock (the AWS region, e.g. us-east-1)' : undefined,
    })
    .regex(/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/, 'an AWS region such as us-east-1 or eu-central-1')
    .meta({
      title: 'Region',
      description: 'The AWS region, e.g. us-east-1 (its endpoint and the signature’s scope).',
    }),
  /**
   * The control plane the router's probe lists foundation models on (ListFoundationModels), e.g.
   * the VPC interface endpoint of `com.amazonaws.{region}.bedrock`. Default: `base_url`'s AWS host
   * with `bedrock-runtime` -> `bedrock`, else `base_url` itself.
   */
  control_plane_url: serviceUrl().optional().meta({
    title: 'Control plane URL',
    description:
      'Where the probe lists foundation models (a VPC endpoint of the control plane); default: derived from the base URL.',
  }),
};

export type BedrockEntry = Entry<typeof bedrockSettings>;

/** Bedrock Runtime's public endpoint for a region (a VPC interface endpoint is set as `base_url`). */
export function bedrockBaseUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}
