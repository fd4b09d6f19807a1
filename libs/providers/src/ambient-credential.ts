import { credentialOf, type ProviderRuntime } from '#libs/config';
import { type RefresherOptions, type UpstreamAuth } from '#libs/credentials';
import { type ProviderDescriptor } from './descriptor.js';

/**
 * The platform credential of a provider that sends no key (its type's descriptor builds it from
 * the apps' environment), or null: a provider with a key, or a local server without one.
 */
export function ambientCredentialOf(
  descriptorOf: (type: string) => ProviderDescriptor,
): (
  provider: ProviderRuntime,
  vars: Readonly<Record<string, string | undefined>>,
  options: RefresherOptions,
) => UpstreamAuth | null {
  return (provider, vars, options) => {
    if (credentialOf(provider).kind !== 'ambient') return null;
    return descriptorOf(provider.type).ambient?.build(provider, vars, options) ?? null;
  };
}
