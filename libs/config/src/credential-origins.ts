import { type ProviderConfig } from './gateway.schema.js';

/**
 * Where a provider's credential goes, and which credential it is. A secret is bound to where it
 * was saved for: these are what the binding, the console's authority rules and the runtime's
 * last check compare.
 */

export type ProviderCredential =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'secret'; readonly id: string }
  | { readonly kind: 'ambient'; readonly platform: string }
  | { readonly kind: 'none' };

type CredentialSettings = Pick<ProviderConfig, 'credential' | 'api_key_env' | 'api_key_secret'>;

/**
 * The credential a provider sends: its key (from the environment or stored), or, without one,
 * the gateway's own platform identity for the types whose descriptor names one. A type that takes
 * no key (its schema refuses one) always sends its platform's.
 */
export function credentialOf(p: CredentialSettings): ProviderCredential {
  const { ambient, takesKey } = p.credential;
  if (ambient !== null && !takesKey) return { kind: 'ambient', platform: ambient };
  if (p.api_key_secret !== undefined) return { kind: 'secret', id: p.api_key_secret };
  if (p.api_key_env !== undefined) return { kind: 'env', name: p.api_key_env };
  return ambient === null ? { kind: 'none' } : { kind: 'ambient', platform: ambient };
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
 * Every origin a provider sends its credential to, sorted: its base URL's, and any other endpoint
 * its descriptor says it calls (a cloud's control plane set apart).
 */
export function credentialOrigins(p: Pick<ProviderConfig, 'credential'>): string[] {
  const origins = p.credential.urls.map((u) => originOf(u) ?? u);
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
  provider: Pick<ProviderConfig, 'id' | 'credential'>,
): string | null {
  if (binding === null)
    return 'it was stored before keys were bound to their provider and address: enter the key again';
  const origins = credentialOrigins(provider);
  const elsewhere = origins.filter((o) => !binding.origins.includes(o));
  if (binding.provider === provider.id && elsewhere.length === 0) return null;
  return `it was saved for provider ${binding.provider} at ${binding.origins.join(', ')}, not ${provider.id} at ${origins.join(', ')}: enter the key again to use it there`;
}
