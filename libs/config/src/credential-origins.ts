import { type ProviderConfig } from './gateway.schema.js';

/**
 * Where a provider's credential goes, and which credential it is. A secret is bound to where it
 * was saved for: these are what the binding, the console's authority rules and the runtime's
 * last check compare.
 */

/** A cloud platform's identity the gateway holds itself (never in configuration). */
export type AmbientCredential = 'entra-id' | 'google' | 'aws';

export type ProviderCredential =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'secret'; readonly id: string }
  | { readonly kind: 'ambient'; readonly platform: AmbientCredential }
  | { readonly kind: 'none' };

type CredentialSettings = Pick<ProviderConfig, 'type' | 'api_key_env' | 'api_key_secret'>;

/**
 * The credential a provider sends: its key (from the environment or stored), or, without one,
 * the gateway's own cloud identity for the types that take one (`azure-openai` Entra ID, `vertex`
 * Google ADC, `bedrock` the AWS chain). Vertex takes Google's whatever else is set.
 */
export function credentialOf(p: CredentialSettings): ProviderCredential {
  if (p.type === 'vertex') return { kind: 'ambient', platform: 'google' };
  if (p.api_key_secret !== undefined) return { kind: 'secret', id: p.api_key_secret };
  if (p.api_key_env !== undefined) return { kind: 'env', name: p.api_key_env };
  if (p.type === 'azure-openai') return { kind: 'ambient', platform: 'entra-id' };
  if (p.type === 'bedrock') return { kind: 'ambient', platform: 'aws' };
  return { kind: 'none' };
}

/** A URL's origin as a browser names it (scheme, host, non-default port), or null when unparsable. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Every origin a provider sends its credential to, sorted: its base URL's, and Bedrock's control
 * plane when set apart (its default is derived from the base URL, so the base URL's origin covers it).
 */
export function credentialOrigins(p: Pick<ProviderConfig, 'base_url' | 'control_plane_url'>): string[] {
  const urls = [p.base_url, p.control_plane_url].filter((u): u is string => u !== undefined);
  const origins = urls.map((u) => originOf(u) ?? u);
  return [...new Set(origins)].sort();
}

/** The place a stored secret was saved for: one provider, at these origins. */
export interface SecretBinding {
  readonly provider: string;
  readonly origins: readonly string[];
}

/** Why `provider` may not send the secret bound by `binding`, or null when it may. */
export function bindingRefusal(
  binding: SecretBinding | null,
  provider: Pick<ProviderConfig, 'id' | 'base_url' | 'control_plane_url'>,
): string | null {
  if (binding === null)
    return 'it was stored before keys were bound to their provider and address: enter the key again';
  const origins = credentialOrigins(provider);
  const elsewhere = origins.filter((o) => !binding.origins.includes(o));
  if (binding.provider === provider.id && elsewhere.length === 0) return null;
  return `it was saved for provider ${binding.provider} at ${binding.origins.join(', ')}, not ${provider.id} at ${origins.join(', ')}: enter the key again to use it there`;
}
