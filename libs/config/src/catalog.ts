import { type GatewayConfig, type ModelConfig, type ProviderConfig } from './gateway.schema.js';
import { bindingRefusal, type SecretBinding } from './credential-origins.js';
import { fallbackChains } from './model-names.js';
import { isGatewaySetting } from './provider-key-vars.js';

/**
 * The variables a provider's `api_key_env` resolves in: the environment cut to those declared for
 * provider keys (`Env.providerKeys`), never the whole of it.
 */
export type ProviderKeys = Readonly<Record<string, string | undefined>>;

/** A provider as the data plane needs it: config plus its resolved secret. */
export interface ProviderRuntime extends ProviderConfig {
  readonly apiKey: string | undefined;
  /** Why the provider cannot be used (e.g. its secret is missing), or null when usable. */
  readonly disabledReason: string | null;
}

/** Secrets entered in the console, opened from the database (#libs/config-store), by id. */
export interface StoredSecretValues {
  readonly values: ReadonlyMap<string, string>;
  /** Why a secret could not be opened (its key-encryption key missing, a tampered row). */
  readonly failures: ReadonlyMap<string, string>;
  /** Where each opened secret was saved for (null: stored before bindings, usable nowhere). */
  readonly bindings: ReadonlyMap<string, SecretBinding | null>;
}

const NO_STORED_SECRETS: StoredSecretValues = { values: new Map(), failures: new Map(), bindings: new Map() };

/**
 * The provider's key, or why it has none. The console refuses what breaks these rules before it
 * is saved; this is the last check, in every app, whatever the stored document says.
 */
function resolveSecret(
  p: ProviderConfig,
  providerKeys: ProviderKeys,
  stored: StoredSecretValues,
  /** The console's OIDC client secret variable, named in the file: the gateway's too. */
  ownSecretVar: string | undefined,
): Pick<ProviderRuntime, 'apiKey' | 'disabledReason'> {
  if (p.enabled === false) return { apiKey: undefined, disabledReason: 'disabled in the configuration' };
  if (p.api_key_secret) {
    const apiKey = stored.values.get(p.api_key_secret);
    const why = apiKey
      ? bindingRefusal(stored.bindings.get(p.api_key_secret) ?? null, p)
      : (stored.failures.get(p.api_key_secret) ?? `secret ${p.api_key_secret} was not loaded`);
    if (why === null) return { apiKey, disabledReason: null };
    return { apiKey: undefined, disabledReason: `its stored key cannot be used: ${why}` };
  }
  if (!p.api_key_env) return { apiKey: undefined, disabledReason: null };
  if (isGatewaySetting(p.api_key_env) || p.api_key_env === ownSecretVar)
    return {
      apiKey: undefined,
      disabledReason: `env ${p.api_key_env} is one of the gateway's own settings, never a provider key`,
    };
  const apiKey = providerKeys[p.api_key_env] || undefined;
  return {
    apiKey,
    disabledReason: apiKey
      ? null
      : `env ${p.api_key_env} is not set, or not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS)`,
  };
}

/**
 * One version of the configuration as lookup tables, derived once, so the hot path does Map/Set
 * reads only. Immutable: a request that takes one keeps a consistent view to its end.
 */
export class CatalogSnapshot {
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly groups: ReadonlyMap<string, ReadonlySet<string>>;
  readonly providers: ReadonlyMap<string, ProviderRuntime>;
  /** Models at least one enabled provider serves: the only ones worth listing to a client. */
  readonly servedModelIds: ReadonlySet<string>;
  /** Alias -> the id of the model it names (every group; `resolveModel` keeps to one). */
  readonly aliases: ReadonlyMap<string, string>;
  /** Per group, per model: the fallback chain inside the group's models (absent: none). */
  private readonly fallbacks: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

  constructor(
    readonly config: GatewayConfig,
    providerKeys: ProviderKeys,
    /** The configuration version (0: the file, read at start with no store). */
    readonly version = 0,
    stored: StoredSecretValues = NO_STORED_SECRETS,
  ) {
    this.models = new Map(config.models.map((m) => [m.id, m]));
    this.groups = new Map(Object.entries(config.groups).map(([g, ids]) => [g, new Set(ids)]));
    this.providers = new Map(
      config.providers.map((p) => [
        p.id,
        Object.freeze({
          ...p,
          ...resolveSecret(p, providerKeys, stored, config.console?.oidc?.client_secret_env),
        }),
      ]),
    );
    this.servedModelIds = new Set(
      [...this.providers.values()]
        .filter((p) => p.disabledReason === null)
        .flatMap((p) => p.models.map((m) => m.id)),
    );
    this.aliases = new Map(config.models.flatMap((m) => (m.aliases ?? []).map((a) => [a, m.id] as const)));
    this.fallbacks = groupFallbacks(config, this.groups);
  }

  /**
   * The model a key of `group` means by `name`: a model id, or an alias of a model the group
   * allows. `not_allowed`: a model id outside the group. An alias of a model outside the group
   * is as unknown as any other name, so a key cannot probe other groups' aliases.
   */
  resolveModel(group: string, name: string): ModelConfig | 'unknown' | 'not_allowed' {
    const allowed = this.groups.get(group);
    const model = this.models.get(name);
    if (model !== undefined) return allowed?.has(name) ? model : 'not_allowed';
    const target = this.aliases.get(name);
    if (target === undefined || !allowed?.has(target)) return 'unknown';
    return this.models.get(target) ?? 'unknown';
  }

  /** The models a request of `group` for `model` may fall back to, in order (empty: none). */
  fallbacksOf(group: string, model: string): readonly string[] {
    return this.fallbacks.get(group)?.get(model) ?? [];
  }

  modelsOfGroup(group: string): ModelConfig[] {
    const ids = this.groups.get(group);
    if (!ids) return [];
    return this.config.models.filter((m) => ids.has(m.id));
  }

  /** What GET /v1/models shows a key of this group: its models that can be served right now. */
  availableModelsOfGroup(group: string): ModelConfig[] {
    return this.modelsOfGroup(group).filter((m) => this.servedModelIds.has(m.id));
  }
}

/** Each group's fallback chains, cut to the group's models; none for a group with fallbacks off. */
function groupFallbacks(
  config: GatewayConfig,
  groups: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, ReadonlyMap<string, readonly string[]>> {
  const chains = fallbackChains(config.models);
  const off = new Set(config.no_fallback_groups);
  const out = new Map<string, ReadonlyMap<string, readonly string[]>>();
  for (const [group, ids] of groups) {
    if (off.has(group)) continue;
    const byModel = new Map<string, readonly string[]>();
    for (const [model, chain] of chains) {
      const inGroup = chain.filter((id) => ids.has(id));
      if (ids.has(model) && inGroup.length > 0) byModel.set(model, inGroup);
    }
    if (byModel.size > 0) out.set(group, byModel);
  }
  return out;
}

/**
 * The live configuration every app injects: reads go to the newest version, which a config store
 * (#libs/config-store) swaps in while traffic flows. Code that must see one version across
 * several reads (a request from admission to its charge) takes `snapshot()` once and keeps it.
 */
export class Catalog {
  private snap: CatalogSnapshot;
  private readonly listeners = new Set<(next: CatalogSnapshot, previous: CatalogSnapshot) => void>();

  constructor(config: GatewayConfig, providerKeys: ProviderKeys, version = 0) {
    this.snap = new CatalogSnapshot(config, providerKeys, version);
  }

  snapshot(): CatalogSnapshot {
    return this.snap;
  }

  get version(): number {
    return this.snap.version;
  }
  get config(): GatewayConfig {
    return this.snap.config;
  }
  get models(): ReadonlyMap<string, ModelConfig> {
    return this.snap.models;
  }
  get groups(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.snap.groups;
  }
  get providers(): ReadonlyMap<string, ProviderRuntime> {
    return this.snap.providers;
  }
  get servedModelIds(): ReadonlySet<string> {
    return this.snap.servedModelIds;
  }
  modelsOfGroup(group: string): ModelConfig[] {
    return this.snap.modelsOfGroup(group);
  }
  availableModelsOfGroup(group: string): ModelConfig[] {
    return this.snap.availableModelsOfGroup(group);
  }

  /** Makes `next` current; listeners (caches derived from the catalog) rebuild from it. */
  swap(next: CatalogSnapshot): void {
    const previous = this.snap;
    if (next.version < previous.version) return;
    this.snap = next;
    for (const cb of this.listeners) cb(next, previous);
  }

  /** Called after each swap; returns a function that removes the listener. */
  onChange(cb: (next: CatalogSnapshot, previous: CatalogSnapshot) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
}
