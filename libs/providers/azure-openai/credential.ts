import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { type TokenCredential, type TokenCredentialOptions } from '@azure/identity';
import {
  type AccessToken,
  BearerTokenAuth,
  type RefresherOptions,
  type UpstreamAuth,
} from '#libs/credentials';

/** The scope of Azure OpenAI (Cognitive Services) tokens: their audience is https://cognitiveservices.azure.com. */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

type Vars = Readonly<Record<string, string | undefined>>;

export type EntraSource = 'client_secret' | 'workload_identity' | 'managed_identity';

/**
 * Which of the standard Microsoft Entra ID sources the environment configures, the first of
 * `DefaultAzureCredential`'s order on a server: a client secret (`AZURE_TENANT_ID`,
 * `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET`), workload identity federation (AKS sets
 * `AZURE_FEDERATED_TOKEN_FILE` with the tenant and client IDs), else managed identity
 * (`AZURE_CLIENT_ID` selects a user-assigned one). One source, not a chain: a refused secret is
 * then reported as such, not as the managed identity endpoint missing behind it. Developer
 * sources (Azure CLI and the like) are left out: a gateway must not run on someone's login.
 */
export function entraSource(vars: Vars): EntraSource {
  if (vars.AZURE_TENANT_ID && vars.AZURE_CLIENT_ID && vars.AZURE_CLIENT_SECRET) return 'client_secret';
  if (vars.AZURE_TENANT_ID && vars.AZURE_CLIENT_ID && vars.AZURE_FEDERATED_TOKEN_FILE)
    return 'workload_identity';
  return 'managed_identity';
}

/**
 * The identity library's options from the environment: `AZURE_AUTHORITY_HOST` (sovereign clouds,
 * private deployments, local stand-ins) and the extra CA certificates Node is given
 * (`NODE_EXTRA_CA_CERTS`), passed explicitly so an in-process app honours them too.
 */
function libraryOptions(vars: Vars): TokenCredentialOptions & { disableInstanceDiscovery?: boolean } {
  const options: TokenCredentialOptions & { disableInstanceDiscovery?: boolean } = {};
  if (vars.AZURE_AUTHORITY_HOST) {
    options.authorityHost = vars.AZURE_AUTHORITY_HOST;
    // Instance discovery asks Microsoft's public cloud about the host: a private authority
    // (an identity proxy, a local stand-in) is not known there and must be trusted as configured.
    if (!PUBLIC_AUTHORITY_HOSTS.has(new URL(vars.AZURE_AUTHORITY_HOST).host))
      options.disableInstanceDiscovery = true;
  }
  if (vars.NODE_EXTRA_CA_CERTS) {
    options.tlsOptions = { ca: [...rootCertificates, readFileSync(vars.NODE_EXTRA_CA_CERTS, 'utf8')] };
  }
  return options;
}

/** Microsoft's own authority hosts (public and sovereign clouds), which instance discovery knows. */
const PUBLIC_AUTHORITY_HOSTS = new Set([
  'login.microsoftonline.com',
  'login.microsoftonline.us',
  'login.chinacloudapi.cn',
  'login.partner.microsoftonline.cn',
]);

/**
 * The credential of the source `entraSource` names, built with `@azure/identity` at its first
 * token: the library is some 300 modules, loaded only by a gateway with a keyless Azure provider.
 */
export function entraCredential(vars: Vars): TokenCredential {
  let built: Promise<TokenCredential> | undefined;
  return {
    getToken: async (scopes, options) =>
      (await (built ??= identityCredential(vars))).getToken(scopes, options),
  };
}

async function identityCredential(vars: Vars): Promise<TokenCredential> {
  const { ClientSecretCredential, ManagedIdentityCredential, WorkloadIdentityCredential } =
    await import('@azure/identity');
  const options = libraryOptions(vars);
  switch (entraSource(vars)) {
    case 'client_secret':
      return new ClientSecretCredential(
        vars.AZURE_TENANT_ID!,
        vars.AZURE_CLIENT_ID!,
        vars.AZURE_CLIENT_SECRET!,
        options,
      );
    case 'workload_identity':
      return new WorkloadIdentityCredential({
        ...options,
        tenantId: vars.AZURE_TENANT_ID!,
        clientId: vars.AZURE_CLIENT_ID!,
        tokenFilePath: vars.AZURE_FEDERATED_TOKEN_FILE!,
      });
    case 'managed_identity':
      return vars.AZURE_CLIENT_ID
        ? new ManagedIdentityCredential({ ...options, clientId: vars.AZURE_CLIENT_ID })
        : new ManagedIdentityCredential(options);
  }
}

/** A provider authenticated with Microsoft Entra ID: its token as `Authorization: Bearer`. */
export function entraAuth(
  credential: TokenCredential,
  options: RefresherOptions = {},
  scope = COGNITIVE_SERVICES_SCOPE,
): UpstreamAuth {
  return new BearerTokenAuth(async (): Promise<AccessToken> => {
    const got = await credential.getToken(scope);
    if (got === null) throw new Error('no token from the Microsoft Entra ID credential chain');
    return {
      token: got.token,
      expiresAtMs: got.expiresOnTimestamp,
      refreshAfterMs: got.refreshAfterTimestamp,
    };
  }, options);
}
