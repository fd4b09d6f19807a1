import { type z } from 'zod';
import { type ProviderConfig } from '#libs/config';
import { type RefresherOptions, type UpstreamAuth } from '#libs/credentials';
import type { CatalogLookup } from '#libs/price-catalog';
import { type ProviderAdapter } from './adapter.js';

/**
 * Everything the gateway knows about one provider type besides its wire formats, in one value its
 * folder exports (`descriptor.ts`): the settings its entries take, where they send credentials and
 * which, how they are probed and priced, and how the console shows them. `registry.ts` lists the
 * descriptors; the configuration's provider entry, the credentials, the console's provider form
 * and the price proposals are all built from them, so adding a type is its folder plus one line.
 */
export interface ProviderDescriptor<Settings extends z.ZodRawShape = z.ZodRawShape> {
  /** The `type` of its configuration entries. */
  readonly type: string;
  /** The vendor's product as people name it, for the console. */
  readonly label: string;
  /**
   * The type's own settings besides the common ones, as zod fields. Each carries its title and
   * description for the console's form (`.meta({ title, description })`).
   */
  readonly settings: Settings;
  /**
   * `required`: entries name their `base_url`. Otherwise the default of an entry without one (a
   * cloud endpoint its region or location gives; a private endpoint is set as `base_url`).
   */
  readonly baseUrl: 'required' | ((entry: Entry<Settings>) => string);
  /**
   * How the router probes it: `path` (a GET of `probe_path`, default `/models`), or the reason an
   * entry may not set `probe_path` (a type whose probe is an API call of its own).
   */
  readonly probe: 'path' | { readonly refusePath: string };
  /** `true` when entries may name a key; otherwise why not, said when one does. */
  readonly keys: true | { readonly refusal: string };
  /** Key variables of the type besides `*_API_KEY`, declared for provider keys by default. */
  readonly keyVars?: readonly string[];
  /** The platform identity an entry without a key authenticates with, when the type has one. */
  readonly ambient?: AmbientCredential<Settings>;
  /** Other URLs its entries send credentials to besides `base_url` (a control plane set apart). */
  credentialUrls?(entry: Entry<Settings>): readonly (string | undefined)[];
  /** Checks across fields, each issue naming its field. */
  check?(entry: Entry<Settings>, issue: (field: string, message: string) => void): void;
  readonly adapter: ProviderAdapter;
  /** Where the price catalog knows an upstream model of an entry (for proposals in the console). */
  catalog(entry: Entry<Settings>, upstreamModel: string): CatalogLookup;
  /** The profile an entry's requests are translated by, for a type with several (shown beside its type). */
  profile?(entry: Entry<Settings>): string;
  /** `gen_ai.provider.name` of its spans: the conventions' well-known name, or the vendor's. */
  genAiName(entry: Entry<Settings>): string;
}

/** An entry of a type as its descriptor reads it: the common fields and its own settings. */
export type Entry<Settings extends z.ZodRawShape> = string extends keyof Settings
  ? ProviderConfig // a descriptor as the registry holds it: any entry
  : ProviderConfig & Readonly<z.output<z.ZodObject<Settings>>>;

/** A cloud's credential chain the gateway holds itself, in the apps' environment (never in configuration). */
export interface AmbientCredential<Settings extends z.ZodRawShape = z.ZodRawShape> {
  /** Its name on the entry's credential facts (logs, /routes, the console's authority rules). */
  readonly platform: string;
  /** The identity platform's name, in messages ("the gateway's own {identity} identity"). */
  readonly identity: string;
  /**
   * The variables its credential chain reads (names, and prefixes ending in `_`): the gateway's,
   * never a provider key, whatever the deployment declares.
   */
  readonly envVars: { readonly names: readonly string[]; readonly prefixes: readonly string[] };
  /** What the console says of it: `short` in lists, `long` on the form. */
  readonly label: { readonly short: string; readonly long: string };
  /** Builds the credential from the apps' environment; it starts refreshing on `start()`. */
  build(
    entry: Entry<Settings>,
    vars: Readonly<Record<string, string | undefined>>,
    options: RefresherOptions,
  ): UpstreamAuth;
}

/**
 * A descriptor as the registry holds it: its functions take any entry (the configuration's schema
 * gave each entry of this type these settings, so the registry, which looks a descriptor up by the
 * entry's type, is the one place that widens them).
 */
export function defineProvider<const Type extends string, Settings extends z.ZodRawShape>(
  descriptor: ProviderDescriptor<Settings> & { readonly type: Type },
): ProviderDescriptor & { readonly type: Type } {
  return descriptor as unknown as ProviderDescriptor & { readonly type: Type };
}

/** An entry's own settings, for the folder of its type (the schema checked them). */
export function settingsOf<Settings extends z.ZodRawShape>(
  _descriptor: ProviderDescriptor<Settings>,
  entry: ProviderConfig,
): Entry<Settings> {
  return entry as Entry<Settings>;
}
