import { z } from 'zod';
import {
  COMMON_PROVIDER_FIELDS,
  type ProviderConfig,
  providerCommonFields,
  type ProviderEntrySchema,
} from '#libs/config';
import { type ProviderDescriptor } from './descriptor.js';

/**
 * The configuration's provider entry, composed from the descriptors: a discriminated union on
 * `type`, each member the common fields and the type's own settings. An entry is checked as the
 * type's rules say (a base URL required or derived, a key taken or refused, a probe path allowed
 * or not, the descriptor's own checks), and comes out with its base URL and probe path filled in
 * and the facts of its credential (`ProviderConfig.credential`).
 */
export function providerEntrySchema(descriptors: readonly ProviderDescriptor[]): ProviderEntrySchema {
  const owners = settingOwners(descriptors);
  const types = descriptors.map((d) => d.type);
  const chainVar = chainVariables(descriptors);
  const members = descriptors.map((d) => memberOf(d, owners, chainVar));
  const [first, ...rest] = members;
  if (first === undefined) throw new Error('no provider types registered');
  return z.discriminatedUnion('type', [first, ...rest], {
    error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${types.join(', ')}` : undefined),
  }) as unknown as ProviderEntrySchema;
}

/** Which types declare each setting, so a setting on another type's entry is named as theirs. */
function settingOwners(descriptors: readonly ProviderDescriptor[]): ReadonlyMap<string, readonly string[]> {
  const owners = new Map<string, string[]>();
  for (const d of descriptors)
    for (const name of Object.keys(d.settings)) owners.set(name, [...(owners.get(name) ?? []), d.type]);
  return owners;
}

/**
 * Whether a variable is one a platform's credential chain reads (any registered type's): the
 * gateway's own, so no entry may send it as a key, whatever the deployment declares.
 */
function chainVariables(descriptors: readonly ProviderDescriptor[]): (name: string) => boolean {
  const names = new Set(descriptors.flatMap((d) => d.ambient?.envVars.names ?? []));
  const prefixes = descriptors.flatMap((d) => d.ambient?.envVars.prefixes ?? []);
  return (name) => names.has(name) || prefixes.some((p) => name.startsWith(p));
}

function memberOf(
  d: ProviderDescriptor,
  owners: ReadonlyMap<string, readonly string[]>,
  chainVar: (name: string) => boolean,
) {
  return z
    .looseObject({ ...providerCommonFields, ...d.settings, type: z.literal(d.type) })
    .superRefine((entry, ctx) => {
      const issue = (field: string, message: string): void =>
        ctx.addIssue({ code: 'custom', path: [field], message });
      foreignSettings(d, entry, owners, issue);
      commonRules(d, entry as unknown as ProviderConfig, issue);
      const keyVar = (entry as { api_key_env?: string }).api_key_env;
      if (keyVar !== undefined && chainVar(keyVar))
        issue('api_key_env', `${keyVar} is one of the gateway's own settings, never a provider key`);
      d.check?.(entry as unknown as ProviderConfig, issue);
    })
    .transform((entry) => completed(d, entry as unknown as ProviderConfig));
}

function foreignSettings(
  d: ProviderDescriptor,
  entry: Record<string, unknown>,
  owners: ReadonlyMap<string, readonly string[]>,
  issue: (field: string, message: string) => void,
): void {
  for (const key of Object.keys(entry)) {
    if (COMMON_PROVIDER_FIELDS.has(key) || Object.hasOwn(d.settings, key)) continue;
    const types = owners.get(key);
    issue(
      key,
      types === undefined
        ? `Unrecognized key: "${key}"`
        : `${key} applies to type ${types.join(' or ')} only (this provider is ${d.type})`,
    );
  }
}

function commonRules(
  d: ProviderDescriptor,
  entry: ProviderConfig,
  issue: (field: string, message: string) => void,
): void {
  const keyField = entry.api_key_env !== undefined ? 'api_key_env' : 'api_key_secret';
  if (entry.api_key_env !== undefined && entry.api_key_secret !== undefined)
    issue('api_key_secret', 'set api_key_env or api_key_secret, not both');
  else if (d.keys !== true && (entry.api_key_env ?? entry.api_key_secret) !== undefined)
    issue(keyField, d.keys.refusal);
  if (d.baseUrl === 'required' && (entry.base_url as string | undefined) === undefined)
    issue('base_url', 'required');
  if (d.probe !== 'path' && (entry.probe_path as string | undefined) !== undefined)
    issue('probe_path', d.probe.refusePath);
}

/** The entry with the type's defaults filled in and its credential's facts. */
function completed(d: ProviderDescriptor, entry: ProviderConfig): ProviderConfig {
  const own = Object.fromEntries(Object.entries(entry).filter(([k]) => Object.hasOwn(d.settings, k)));
  const common = Object.fromEntries(Object.entries(entry).filter(([k]) => COMMON_PROVIDER_FIELDS.has(k)));
  const baseUrl =
    (entry.base_url as string | undefined) ?? (d.baseUrl === 'required' ? '' : d.baseUrl(entry));
  const withDefaults = { ...common, ...own, base_url: baseUrl, probe_path: entry.probe_path ?? '/models' };
  const urls = [baseUrl, ...(d.credentialUrls?.(entry as never) ?? [])].filter(
    (u): u is string => u !== undefined,
  );
  return {
    ...(withDefaults as unknown as ProviderConfig),
    credential: { ambient: d.ambient?.platform ?? null, takesKey: d.keys === true, urls },
  };
}
