import { z } from 'zod';

/**
 * The settings every provider entry has, whatever its type. A type's own settings, its base-URL
 * rule and its credential come from its descriptor in libs/providers; the entry's schema is a
 * discriminated union on `type` composed there (`#libs/gateway-config`), so this lib names no
 * provider type.
 */

export const modelId = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => s.trim() === s, 'model IDs carry no surrounding spaces');

const servedModel = z.union([
  modelId.transform((id) => ({ id, upstream: id })),
  z
    .strictObject({ id: modelId, upstream: modelId.optional() })
    .transform((m) => ({ id: m.id, upstream: m.upstream ?? m.id })),
]);

const envVarName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name such as PROVIDER_API_KEY');

/** An http(s) URL, without a trailing slash (paths are appended to it). */
export const serviceUrl = (): z.ZodPipe<z.ZodURL, z.ZodTransform<string, string>> =>
  z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

export const providerCommonFields = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _'),
  /**
   * The vendor's API base as its own SDK takes it, e.g. https://api.openai.com/v1. Required but
   * for a type whose descriptor derives it from other settings (a cloud's region or location).
   */
  base_url: serviceUrl().optional(),
  /** Name of the env var holding the secret; the secret itself never sits in the file. */
  api_key_env: envVarName.optional(),
  /**
   * Instead of `api_key_env`: the id of a secret entered in the console, stored encrypted in
   * Postgres (docs/configuration.md, "Secrets at rest"); never in the file.
   */
  api_key_secret: z.uuid('the id of a stored secret').optional(),
  /** False: kept in the configuration but never routed to, probed or listed. */
  enabled: z.boolean().default(true),
  models: z.array(servedModel).min(1),
  priority: z.int().min(0).default(0),
  weight: z.number().positive().default(1),
  /**
   * Path probed by the router; relative to base_url. Must be cheap and unbilled (a model listing).
   * Default `/models`; a type whose descriptor probes elsewhere refuses it.
   */
  probe_path: z.string().startsWith('/').optional(),
  /** Limits honoured across all edges together (coordinated in Redis); omitted = unlimited, and free. */
  limits: z
    .strictObject({
      max_concurrency: z.int().positive().optional(),
      rpm: z.int().positive().optional(),
    })
    .optional(),
} as const;

/** The names of the common fields, for telling a type's own settings apart. */
export const COMMON_PROVIDER_FIELDS: ReadonlySet<string> = new Set([
  'type',
  ...Object.keys(providerCommonFields),
]);

type CommonFields = z.output<z.ZodObject<typeof providerCommonFields>>;

/**
 * What a provider's credential is, as its descriptor tells it from the entry: the gateway's key
 * (from the environment or stored), the platform identity the gateway holds itself (a cloud's
 * credential chain, never in configuration), or none.
 */
export interface ProviderCredentialFacts {
  /** The identity platform a provider without a key authenticates with; null: a key or nothing. */
  readonly ambient: string | null;
  /** Whether the type takes a key at all (a type authenticating only with its platform does not). */
  readonly takesKey: boolean;
  /** Every URL the provider sends its credential to (its base URL, and any other endpoint it calls). */
  readonly urls: readonly string[];
}

/**
 * A provider entry as every app reads it. `base_url` and `probe_path` are always set (the
 * descriptor's defaults filled in); the type's own settings stay on the entry as written, read
 * only through its descriptor.
 */
export type ProviderConfig = Omit<CommonFields, 'base_url' | 'probe_path'> & {
  readonly type: string;
  readonly base_url: string;
  readonly probe_path: string;
  readonly credential: ProviderCredentialFacts;
};

/** A provider entry as written: the common fields, its type, and the type's own settings. */
export type ProviderEntryInput = z.input<z.ZodObject<typeof providerCommonFields>> & {
  type: string;
  [setting: string]: unknown;
};

/** The schema of one provider entry, composed from the provider types' descriptors one layer up. */
export type ProviderEntrySchema = z.ZodType<ProviderConfig, unknown>;
