import { type GatewayConfig, type ModelConfig, type ProviderConfig } from './gateway.schema.js';
import { type Env } from './env.js';

/** A provider as the data plane needs it: config plus its resolved secret. */
export interface ProviderRuntime extends ProviderConfig {
  readonly apiKey: string | undefined;
  /** Why the provider cannot be used (e.g. its secret is missing), or null when usable. */
  readonly disabledReason: string | null;
}

/**
 * Lookup tables derived once from the config, so the hot path does Map/Set reads only.
 */
export class Catalog {
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly groups: ReadonlyMap<string, ReadonlySet<string>>;
  readonly providers: ReadonlyMap<string, ProviderRuntime>;
  /** Models at least one enabled provider serves: the only ones worth listing to a client. */
  readonly servedModelIds: ReadonlySet<string>;

  constructor(
    readonly config: GatewayConfig,
    secrets: Env['secrets'],
  ) {
    this.models = new Map(config.models.map((m) => [m.id, m]));
    this.groups = new Map(Object.entries(config.groups).map(([g, ids]) => [g, new Set(ids)]));
    this.providers = new Map(
      config.providers.map((p) => {
        const apiKey = p.api_key_env ? secrets[p.api_key_env] || undefined : undefined;
        const disabledReason = p.api_key_env && !apiKey ? `env ${p.api_key_env} is not set` : null;
        return [p.id, Object.freeze({ ...p, apiKey, disabledReason })];
      }),
    );
    this.servedModelIds = new Set(
      [...this.providers.values()]
        .filter((p) => p.disabledReason === null)
        .flatMap((p) => p.models.map((m) => m.id)),
    );
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
