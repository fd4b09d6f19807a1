import { descriptorOf } from '#libs/providers';
import {
  bindingRefusal,
  type ConfigIssue,
  credentialOf,
  credentialOrigins,
  type ProviderConfig,
  type ProviderCredential,
  type ProviderKeyVars,
  providerKeyVarRefusal,
  type SecretBinding,
} from '#libs/config';

/**
 * Who may make the gateway send which credential where (issue 31). A role can make the gateway do
 * only what it may do itself: an operator never reads the environment, a secret an admin stored,
 * or the gateway's cloud identity, so an operator may neither name them nor move them to another
 * address. These rules hold for every change that reaches a provider: a save, an import, a test.
 */
export interface CredentialChange {
  /** The providers as saved now (the version the change is made on). */
  readonly before: readonly ProviderConfig[];
  /** The providers the change would send credentials from, with their paths for issues. */
  readonly after: readonly { readonly path: string; readonly provider: ProviderConfig }[];
  readonly admin: boolean;
  readonly keyVars: ProviderKeyVars;
  /** The console's OIDC client secret variable (the file's): the gateway's own, like the rest. */
  readonly ownSecretVar: string | undefined;
  /** The bindings of the stored secrets `after` names; a secret absent here does not exist (refused elsewhere). */
  readonly bindings: ReadonlyMap<string, SecretBinding | null>;
}

const sameCredential = (a: ProviderCredential, b: ProviderCredential): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/** Every reason the change may not be made by this caller, by field. */
export function credentialIssues(change: CredentialChange): ConfigIssue[] {
  return change.after.flatMap(({ path, provider }) => [
    ...sourceIssues(path, provider, change),
    ...(change.admin ? [] : authorityIssues(path, provider, change.before)),
  ]);
}

/** Where the key comes from must be one the deployment allows, for anyone. */
function sourceIssues(path: string, p: ProviderConfig, change: CredentialChange): ConfigIssue[] {
  const credential = credentialOf(p);
  if (credential.kind === 'env') {
    const refusal =
      credential.name === change.ownSecretVar
        ? `${credential.name} is one of the gateway's own settings, never a provider key`
        : providerKeyVarRefusal(credential.name, change.keyVars);
    return refusal === null ? [] : [{ path: `${path}.api_key_env`, message: refusal }];
  }
  if (credential.kind === 'secret' && change.bindings.has(credential.id)) {
    const refusal = bindingRefusal(change.bindings.get(credential.id) ?? null, p);
    return refusal === null
      ? []
      : [{ path: `${path}.api_key_secret`, message: `the stored key cannot be used here: ${refusal}` }];
  }
  return [];
}

/** What only an admin may do: name the environment, lend the gateway's identity, re-point a credential. */
function authorityIssues(path: string, p: ProviderConfig, before: readonly ProviderConfig[]): ConfigIssue[] {
  const previous = before.find((b) => b.id === p.id);
  const credential = credentialOf(p);
  const had = previous === undefined ? ({ kind: 'none' } as const) : credentialOf(previous);
  const issues: ConfigIssue[] = [];
  if (credential.kind === 'env' && previous?.api_key_env !== p.api_key_env)
    issues.push({
      path: `${path}.api_key_env`,
      message: 'only an admin may set or change api_key_env (it reads the gateway environment)',
    });
  if (credential.kind === 'ambient' && !sameCredential(credential, had))
    issues.push({
      path: `${path}.type`,
      message: `only an admin may add a provider that authenticates with the gateway's own ${descriptorOf(p.type).ambient?.identity ?? credential.platform} identity`,
    });
  if (previous !== undefined && had.kind !== 'none' && credential.kind !== 'none') {
    const was = credentialOrigins(previous);
    const now = credentialOrigins(p);
    if (was.join(' ') !== now.join(' '))
      issues.push({
        path: `${path}.base_url`,
        message: `only an admin may point provider ${p.id}, which holds a key or cloud identity, at another address (${was.join(', ')}, not ${now.join(', ')})`,
      });
  }
  return issues;
}
