/**
 * Where the router's probe of a `bedrock` provider goes. Bedrock Runtime (the provider's
 * `base_url`, `bedrock-runtime.{region}.amazonaws.com`) has no model listing: its only reads are
 * async invocations. The listing is ListFoundationModels, `GET /foundation-models` on the control
 * plane (`bedrock.{region}.amazonaws.com`), a separate endpoint with the same SigV4 signing name
 * (`bedrock`) and region, and taking Bedrock API keys as the runtime does. It is unbilled; the
 * identity needs `bedrock:ListFoundationModels` (no resource-level permission: `"Resource": "*"`).
 */

/** ListFoundationModels (Amazon Bedrock API reference, botocore's `bedrock` 2023-04-20 model). */
export const LIST_FOUNDATION_MODELS_PATH = '/foundation-models';

/** A bedrock provider's settings the probe is placed by (a subset of its config entry). */
export interface BedrockProbeSettings {
  readonly base_url: string;
  readonly control_plane_url?: string | undefined;
}

/** AWS's own runtime host names: public, FIPS, China, dual-stack. Not a VPC endpoint's (`vpce-...`). */
const AWS_RUNTIME_HOST = /^bedrock-runtime(-fips)?\.([a-z0-9-]+\.(?:amazonaws\.com(?:\.cn)?|api\.aws))$/;

/**
 * The control plane of a provider: `control_plane_url` when set (a VPC interface endpoint of
 * `com.amazonaws.{region}.bedrock`, whose name cannot be derived from the runtime's); else, for
 * an AWS runtime host, the same host with `bedrock-runtime` -> `bedrock` (as AWS's endpoint rules
 * place both); else `base_url` itself (a proxy in front of both, or a runtime VPC endpoint, which
 * answers the listing's path with ValidationException: the probe then proves it reachable and
 * the credential accepted, not the listing).
 */
export function bedrockControlPlaneUrl(settings: BedrockProbeSettings): string {
  if (settings.control_plane_url !== undefined) return settings.control_plane_url;
  const url = new URL(settings.base_url);
  const aws = AWS_RUNTIME_HOST.exec(url.hostname);
  if (aws === null) return settings.base_url;
  return `${url.protocol}//bedrock${aws[1] ?? ''}.${aws[2]}${url.port === '' ? '' : `:${url.port}`}`;
}

/** The absolute URL of the probe's ListFoundationModels call. */
export function bedrockProbeUrl(settings: BedrockProbeSettings): string {
  return `${bedrockControlPlaneUrl(settings)}${LIST_FOUNDATION_MODELS_PATH}`;
}
