import { type ProviderRuntime } from '#libs/config';
import { EntraAuth, entraCredential } from './entra.js';
import { GoogleAuthCredential, googleAuthClient } from './google.js';
import { awsIdentity, SigV4Auth } from './sigv4.js';
import { type RefresherOptions } from './token-refresher.js';
import { type UpstreamAuth } from './upstream-auth.js';

/** What an app is told about a provider's credential (it logs it). */
export interface CredentialEvents {
  failed(providerId: string, reason: string): void;
  recovered(providerId: string): void;
}

/**
 * The credential a provider needs besides a static key, or null (every type with a key, and a
 * local server without one): `azure-openai` without `api_key_env` takes Microsoft Entra ID,
 * `vertex` Google's Application Default Credentials, `bedrock` without `api_key_env` the AWS
 * credential chain (its requests signed with SigV4).
 * Credentials come from the environment and the platform's chain, never from the config file.
 */
export function credentialFor(
  provider: ProviderRuntime,
  vars: Readonly<Record<string, string | undefined>>,
  options: RefresherOptions,
): UpstreamAuth | null {
  if (provider.type === 'azure-openai' && provider.api_key_env === undefined)
    return new EntraAuth(entraCredential(vars), options);
  if (provider.type === 'vertex') return new GoogleAuthCredential(() => googleAuthClient(vars), options);
  // Without a Bedrock API key (the bearer its adapter sends), every request is signed (SigV4).
  if (provider.type === 'bedrock' && provider.api_key_env === undefined)
    return new SigV4Auth(awsIdentity(vars), provider.region!, options);
  return null;
}

/**
 * Every provider's credential, built once at boot. `start()` gets the first tokens (their failures
 * are recorded, not thrown: a provider whose identity platform is down is a provider down, not an
 * app that cannot boot); `close()` stops the refreshes.
 */
export class ProviderCredentials {
  private readonly byProvider = new Map<string, UpstreamAuth>();

  constructor(
    providers: Iterable<ProviderRuntime>,
    vars: Readonly<Record<string, string | undefined>>,
    events: CredentialEvents,
  ) {
    for (const provider of providers) {
      if (provider.disabledReason !== null) continue;
      const auth = credentialFor(provider, vars, {
        onFailure: (reason) => events.failed(provider.id, reason),
        onRecovery: () => events.recovered(provider.id),
      });
      if (auth !== null) this.byProvider.set(provider.id, auth);
    }
  }

  /** The provider's credential; null when its adapter's static key is all it needs. */
  get(providerId: string): UpstreamAuth | null {
    return this.byProvider.get(providerId) ?? null;
  }

  async start(): Promise<void> {
    await Promise.all([...this.byProvider.values()].map((auth) => auth.start()));
  }

  close(): void {
    for (const auth of this.byProvider.values()) auth.close();
  }

  /** As a Nest provider: the refreshes stop with the app. */
  onApplicationShutdown(): void {
    this.close();
  }
}

/** How long an app's boot waits for the first credentials before serving (later requests wait on the refresh in flight). */
const FIRST_TOKENS_WAIT_MS = 15_000;

/** Builds and starts every provider's credential, logging their failures and recoveries. */
export async function startProviderCredentials(
  providers: Iterable<ProviderRuntime>,
  vars: Readonly<Record<string, string | undefined>>,
  log: { warn(message: string): void; log(message: string): void },
): Promise<ProviderCredentials> {
  const credentials = new ProviderCredentials(providers, vars, {
    failed: (id, reason) => log.warn(`provider ${id}: credential refresh failed (${reason})`),
    recovered: (id) => log.log(`provider ${id}: credential refreshed again`),
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    credentials.start(),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_TOKENS_WAIT_MS).unref())),
  ]);
  clearTimeout(timer);
  return credentials;
}
