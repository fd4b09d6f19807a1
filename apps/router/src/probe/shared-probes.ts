import { hash } from 'node:crypto';
import { type ProviderRuntime } from '#libs/config';

/**
 * What makes two providers' probes the same request: the same GET (type, URL, headers, so the same
 * key) with no credential of their own. Providers sharing an upstream and its key (one vendor
 * account split into several providers by model list, priority or limits) are probed once a cycle,
 * and the outcome is every one's: the router's probe CPU no longer grows with such providers.
 * A provider with a credential object (a cloud identity, SigV4) signs each request itself, so it
 * keeps a probe of its own, as does one whose probe cannot be built (its own error is its reason).
 */
export function sharedProbeKey(
  provider: ProviderRuntime,
  request: (p: ProviderRuntime) => { url: URL; headers: Record<string, string> },
  hasOwnCredential: boolean,
): string {
  if (hasOwnCredential) return `own:${provider.id}`;
  try {
    const { url, headers } = request(provider);
    const sorted = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // Hashed: the key holds no secret, and a map of them stays small.
    return `shared:${hash('sha256', JSON.stringify([provider.type, url.href, sorted]), 'hex')}`;
  } catch {
    return `own:${provider.id}`;
  }
}

/** Providers grouped by the probe they share, in first-seen order. */
export function groupByProbe<T>(providers: readonly T[], keyOf: (p: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const p of providers) {
    const key = keyOf(p);
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()];
}
