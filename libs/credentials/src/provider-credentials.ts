import { type Catalog, type ProviderRuntime } from '#libs/config';
import { type RefresherOptions } from './token-refresher.js';
import { type UpstreamAuth } from './upstream-auth.js';

/**
 * The credential a provider needs besides a static key (a cloud's platform identity), or null:
 * given by the provider types' descriptors (libs/providers `ambientCredential`), so this lib
 * names no platform. Credentials come from the environment and the platform's chain, never from
 * the config file.
 */
export type CredentialBuilder = (
  provider: ProviderRuntime,
  vars: Readonly<Record<string, string | undefined>>,
  options: RefresherOptions,
) => UpstreamAuth | null;

/** What an app is told about a provider's credential (it logs it). */
export interface CredentialEvents {
  failed(providerId: string, reason: string): void;
  recovered(providerId: string): void;
}

/** The settings a provider's credential is made from: a change to any of them makes a new one. */
function credentialIdentity(p: ProviderRuntime): string {
  // Everything but what routes traffic (and the key itself, which a credential never reads).
  const {
    models: _m,
    priority: _p,
    weight: _w,
    limits: _l,
    enabled: _e,
    apiKey: _k,
    disabledReason: _d,
    ...identity
  } = p;
  return JSON.stringify(identity);
}

/**
 * Every provider's credential, built at boot and updated with each configuration version. `start()` gets the first tokens (their failures
 * are recorded, not thrown: a provider whose identity platform is down is a provider down, not an
 * app that cannot boot); `close()` stops the refreshes.
 */
export class ProviderCredentials {
  private byProvider = new Map<string, { readonly auth: UpstreamAuth; readonly identity: string }>();

  constructor(
    providers: Iterable<ProviderRuntime>,
    private readonly vars: Readonly<Record<string, string | undefined>>,
    private readonly events: CredentialEvents,
    private readonly credentialFor: CredentialBuilder,
  ) {
    this.byProvider = this.build(providers, new Map());
  }

  /**
   * The providers of a new configuration version: a credential whose provider kept the settings
   * it depends on is kept (its token too); new ones are started, those of removed or changed
   * providers closed. Requests already holding the old one finish with it.
   */
  async update(providers: Iterable<ProviderRuntime>): Promise<void> {
    const previous = this.byProvider;
    const next = this.build(providers, previous);
    this.byProvider = next;
    for (const [id, held] of previous) if (next.get(id)?.auth !== held.auth) held.auth.close();
    await Promise.all(
      [...next]
        .filter(([id, held]) => previous.get(id)?.auth !== held.auth)
        .map(([, held]) => held.auth.start()),
    );
  }

  private build(
    providers: Iterable<ProviderRuntime>,
    previous: ReadonlyMap<string, { readonly auth: UpstreamAuth; readonly identity: string }>,
  ): Map<string, { readonly auth: UpstreamAuth; readonly identity: string }> {
    const built = new Map<string, { readonly auth: UpstreamAuth; readonly identity: string }>();
    for (const provider of providers) {
      if (provider.disabledReason !== null || provider.enabled === false) continue;
      const identity = credentialIdentity(provider);
      const kept = previous.get(provider.id);
      if (kept?.identity === identity) {
        built.set(provider.id, kept);
        continue;
      }
      const auth = this.credentialFor(provider, this.vars, {
        onFailure: (reason) => this.events.failed(provider.id, reason),
        onRecovery: () => this.events.recovered(provider.id),
      });
      if (auth !== null) built.set(provider.id, { auth, identity });
    }
    return built;
  }

  /** The provider's credential; null when its adapter's static key is all it needs. */
  get(providerId: string): UpstreamAuth | null {
    return this.byProvider.get(providerId)?.auth ?? null;
  }

  /** Per provider with a credential, its last refresh's failure (null when it worked): the gauge's. */
  *failures(): Iterable<readonly [providerId: string, failure: string | null]> {
    for (const [id, held] of this.byProvider) yield [id, held.auth.failure];
  }

  async start(): Promise<void> {
    await Promise.all([...this.byProvider.values()].map((held) => held.auth.start()));
  }

  close(): void {
    for (const held of this.byProvider.values()) held.auth.close();
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
  credentialFor: CredentialBuilder,
  log: { warn(message: string): void; log(message: string): void },
): Promise<ProviderCredentials> {
  const events = {
    failed: (id: string, reason: string) => log.warn(`provider ${id}: credential refresh failed (${reason})`),
    recovered: (id: string) => log.log(`provider ${id}: credential refreshed again`),
  };
  const credentials = new ProviderCredentials(providers, vars, events, credentialFor);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    credentials.start(),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_TOKENS_WAIT_MS).unref())),
  ]);
  clearTimeout(timer);
  return credentials;
}

/**
 * As startProviderCredentials, for the catalog's current providers, then kept in step with each
 * configuration version the catalog takes.
 */
export async function liveProviderCredentials(
  catalog: Catalog,
  vars: Readonly<Record<string, string | undefined>>,
  credentialFor: CredentialBuilder,
  log: { warn(message: string): void; log(message: string): void },
): Promise<ProviderCredentials> {
  const credentials = await startProviderCredentials(catalog.providers.values(), vars, credentialFor, log);
  catalog.onChange((next) => {
    credentials
      .update(next.providers.values())
      .catch((err: Error) => log.warn(`credentials update failed: ${err.message}`));
  });
  return credentials;
}
