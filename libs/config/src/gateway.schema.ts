import { z } from 'zod';

/** Provider wire formats we speak. `openai-compatible` covers DeepSeek, Groq, vLLM, Ollama and the like. */
export const PROVIDER_TYPES = ['openai', 'openai-compatible', 'perplexity', 'anthropic'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

const modelId = z
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
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name such as OPENAI_API_KEY');

const providerSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _'),
  type: z.enum(PROVIDER_TYPES),
  /** The vendor's API base as its own SDK takes it, e.g. https://api.openai.com/v1 or https://api.anthropic.com. */
  base_url: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, '')),
  /** Name of the env var holding the secret; the secret itself never sits in the file. */
  api_key_env: envVarName.optional(),
  models: z.array(servedModel).min(1),
  priority: z.int().min(0).default(0),
  weight: z.number().positive().default(1),
  /** Path probed by the router; relative to base_url. Must be cheap and unbilled (a model listing). */
  probe_path: z.string().startsWith('/').default('/models'),
});

const modelSchema = z.strictObject({
  id: modelId,
  owned_by: z.string().min(1),
  created: z.int().nonnegative(),
  pricing: z.strictObject({
    /** Credits per million input tokens. */
    input_per_million: z.number().nonnegative(),
    /** Credits per million output tokens. */
    output_per_million: z.number().nonnegative(),
  }),
});

const edgeSchema = z
  .strictObject({
    body_limit_bytes: z
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    /** How long a key stays in an edge's memory before it is looked up again (revocation is pushed sooner). */
    key_cache_ttl_ms: z.int().positive().default(60_000),
    log_flush_interval_ms: z.int().positive().default(20),
    log_flush_max_batch: z.int().positive().default(500),
  })
  .default({
    body_limit_bytes: 4 * 1024 * 1024,
    key_cache_ttl_ms: 60_000,
    log_flush_interval_ms: 20,
    log_flush_max_batch: 500,
  });

const routerSchema = z
  .strictObject({
    probe_interval_ms: z.int().positive().default(5_000),
    probe_timeout_ms: z.int().positive().default(2_000),
    /** Consecutive failed probes before a provider is marked down. */
    down_after_failures: z.int().positive().default(2),
  })
  .default({ probe_interval_ms: 5_000, probe_timeout_ms: 2_000, down_after_failures: 2 });

const workerSchema = z
  .strictObject({
    batch_max: z.int().positive().default(500),
    batch_wait_ms: z.int().positive().default(50),
    /** Credits granted to a user created without an explicit grant. */
    default_grant_credits: z.number().nonnegative().default(0),
  })
  .default({ batch_max: 500, batch_wait_ms: 50, default_grant_credits: 0 });

export const gatewayConfigSchema = z
  .strictObject({
    edge: edgeSchema,
    router: routerSchema,
    worker: workerSchema,
    providers: z.array(providerSchema).min(1),
    models: z.array(modelSchema).min(1),
    groups: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), z.array(modelId)),
  })
  .superRefine((cfg, ctx) => {
    const modelIds = new Set<string>();
    cfg.models.forEach((m, i) => {
      if (modelIds.has(m.id))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model ${m.id}` });
      modelIds.add(m.id);
    });
    const providerIds = new Set<string>();
    cfg.providers.forEach((p, i) => {
      if (providerIds.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `duplicate provider ${p.id}` });
      providerIds.add(p.id);
      p.models.forEach((m, j) => {
        if (!modelIds.has(m.id))
          ctx.addIssue({
            code: 'custom',
            path: ['providers', i, 'models', j],
            message: `unknown model ${m.id} (not in models)`,
          });
      });
    });
    for (const [name, ids] of Object.entries(cfg.groups)) {
      ids.forEach((id, j) => {
        if (!modelIds.has(id))
          ctx.addIssue({
            code: 'custom',
            path: ['groups', name, j],
            message: `unknown model ${id} (not in models)`,
          });
      });
    }
  });

export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
export type ProviderConfig = GatewayConfig['providers'][number];
export type ModelConfig = GatewayConfig['models'][number];
