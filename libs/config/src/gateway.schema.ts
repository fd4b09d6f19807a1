import { z } from 'zod';
import { checkAliases, checkFallbacks } from './model-names.js';
import { modelId, type ProviderEntryInput, type ProviderEntrySchema } from './provider-entry.js';

/** How an edge orders a model's healthy candidates. */
export const ROUTING_STRATEGIES = ['priority', 'latency', 'least_inflight'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

const price = z.number().nonnegative();
/** One set of prices; a cache price left out is the input price (the fallback rule). */
const priceListSchema = z.strictObject({
  input_per_million: price,
  output_per_million: price,
  cache_read_per_million: price.optional(),
  cache_write_5m_per_million: price.optional(),
  cache_write_1h_per_million: price.optional(),
  /** Uncached prompt audio (Gemini, OpenAI's audio models); left out, audio is input. */
  input_audio_per_million: price.optional(),
  /** Prompt audio read from the cache (Gemini); left out, cached audio is a cache read. */
  cache_read_audio_per_million: price.optional(),
  /** Audio output, speech (OpenAI's and Gemini's audio models); left out, audio output is output. */
  output_audio_per_million: price.optional(),
});

/** Credits per thousand of a usage counter; a counter without a fee costs nothing. */
const feesSchema = z.strictObject({
  /** Each web search the vendor ran (Anthropic's web search tool: 10 per thousand). */
  web_search_requests: price.optional(),
  /** Each request answered (Perplexity's request fee). */
  requests: price.optional(),
  /** Each prompt character the vendor bills (Vertex's text embedding models, white space not counted). */
  input_characters: price.optional(),
});

const modelSchema = z.strictObject({
  id: modelId,
  /** priority: priority tiers, weighted random inside one (default); latency: fastest first; least_inflight. */
  strategy: z.enum(ROUTING_STRATEGIES).default('priority'),
  /** Overrides `routing.sticky_sessions` for this model (an agent session's requests to one provider). */
  sticky_sessions: z.boolean().optional(),
  owned_by: z.string().min(1),
  created: z.int().nonnegative(),
  /** What the console shows for it (the id when absent); clients see the id only. */
  display_name: z
    .string()
    .min(1)
    .max(100)
    .refine((s) => ![...s].some((c) => c < ' ' || c === '\x7f'), 'no control characters')
    .optional(),
  /** Its context window in tokens (from the price catalog by default), for operators and fallbacks. */
  context_window: z.int().positive().optional(),
  /** Other names clients may call it by (`claude-sonnet-latest`, `fast`); each resolves to this id. */
  aliases: z.array(modelId).max(32).optional(),
  /** Whether the Models APIs list its aliases as models of their own (default: they resolve, unlisted). */
  list_aliases: z.boolean().optional(),
  /**
   * Models tried, in order, when this one cannot answer: no healthy provider, failures before the
   * first byte, or a prompt too long for its window (then only larger windows). Each is followed
   * by its own fallbacks (docs/routing.md, "Fallbacks").
   */
  fallbacks: z.array(modelId).max(16).optional(),
  /** Credits per million tokens of each usage component (docs/quota.md, "Usage components and prices"). */
  pricing: priceListSchema.extend({
    /** Higher prices for every token of a request whose prompt (cache included) is above a size. */
    tiers: z.array(priceListSchema.extend({ above_input_tokens: z.int().positive() })).optional(),
    fees_per_thousand: feesSchema.optional(),
  }),
});

/**
 * WebSocket sessions (`GET /v1/responses` upgraded; docs/operations.md, "WebSocket sessions"):
 * their limits, and the conversation a continuation (`previous_response_id`) is expanded from.
 */
const websocketsSchema = z.strictObject({
  /** Open sockets per API key on one edge; the handshake past it is a 429. */
  max_sockets_per_key: z.int().positive().default(16),
  /** A session is closed (1001) after this long, once its response in flight ended: 60 min, as OpenAI's. */
  max_session_ms: z
    .int()
    .positive()
    .default(60 * 60_000),
  /** A session with no response in flight and no message for this long is closed (1000). */
  idle_timeout_ms: z
    .int()
    .positive()
    .default(5 * 60_000),
  /** Largest client message (a response.create holds a whole request body, as body_limit_bytes). */
  max_message_bytes: z
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** Bytes queued to a client that stopped reading before its upstream is paused. */
  send_buffer_bytes: z
    .int()
    .positive()
    .default(1024 * 1024),
  /** response.create events waiting behind the one in flight; more get an error event. */
  max_queued_requests: z.int().nonnegative().default(8),
  /** The conversation a continuation is expanded from: its items (input and output)... */
  conversation_max_items: z.int().positive().default(10_000),
  /** ...and their JSON bytes; a continuation past either is refused with an error event. */
  conversation_max_bytes: z
    .int()
    .positive()
    .default(32 * 1024 * 1024),
});

const edgeSchema = z
  .strictObject({
    /**
     * Largest request body: 32 MiB, what Anthropic accepts, so an agent's long session (100+ turns,
     * tool results, images) fits. Such a body costs about 3x its size in heap while it is parsed
     * and translated: large_bodies_budget_bytes bounds how many are in flight.
     */
    body_limit_bytes: z
      .int()
      .positive()
      .default(32 * 1024 * 1024),
    /** Bodies declaring more than this (content-length) count against large_bodies_budget_bytes. */
    large_body_bytes: z
      .int()
      .positive()
      .default(1024 * 1024),
    /**
     * The declared bytes of large bodies an edge reads and handles at once; a large body beyond it
     * is answered 503 (`server_busy`, retry-after 1) before it is read. 96 MiB: about 300 MB of
     * heap at worst, inside the 512 MB an app runs with.
     */
    large_bodies_budget_bytes: z
      .int()
      .positive()
      .default(96 * 1024 * 1024),
    /** How long a key stays in an edge's memory before it is looked up again (revocation is pushed sooner). */
    key_cache_ttl_ms: z.int().positive().default(60_000),
    log_flush_interval_ms: z.int().positive().default(20),
    log_flush_max_batch: z.int().positive().default(500),
    /** A log flush not in Redis by then counts as failed; its logs go to the spool (Redis unreachable). */
    log_flush_timeout_ms: z.int().positive().default(2_000),
    /** Logs held in memory while Redis is unreachable before they are spilled to the spool. */
    log_buffer_max: z.int().positive().default(10_000),
    /** Append-only JSON-lines files of logs Redis could not take; replayed when Redis is back / at start. */
    log_spool_dir: z.string().min(1).default('var/spool'),
    /** On SIGTERM: readiness fails at once, new requests are still served this long (load balancers catch up). */
    shutdown_delay_ms: z.int().nonnegative().default(0),
    /** Then in-flight requests and streams get this long to finish before their connections are cut. */
    shutdown_timeout_ms: z.int().positive().default(25_000),
    websockets: websocketsSchema.default(websocketsSchema.parse({})),
  })
  .default({
    body_limit_bytes: 32 * 1024 * 1024,
    large_body_bytes: 1024 * 1024,
    large_bodies_budget_bytes: 96 * 1024 * 1024,
    key_cache_ttl_ms: 60_000,
    log_flush_interval_ms: 20,
    log_flush_max_batch: 500,
    log_flush_timeout_ms: 2_000,
    log_buffer_max: 10_000,
    log_spool_dir: 'var/spool',
    shutdown_delay_ms: 0,
    shutdown_timeout_ms: 25_000,
    websockets: websocketsSchema.parse({}),
  });

const breakerSchema = z.strictObject({
  /** Consecutive failed requests (or probes) that open the breaker. */
  consecutive_failures: z.int().positive().default(5),
  /** Failure share over the window that opens the breaker, once it holds `min_samples`. */
  failure_rate: z.number().gt(0).lte(1).default(0.5),
  min_samples: z.int().positive().default(20),
  window_ms: z.int().positive().default(30_000),
  /** Open -> half-open after this long. */
  cooldown_ms: z.int().positive().default(15_000),
  /** Successful trial requests in half-open that close the breaker again. */
  half_open_trials: z.int().positive().default(3),
});
const BREAKER_DEFAULTS = breakerSchema.parse({});

const routerSchema = z
  .strictObject({
    probe_interval_ms: z.int().positive().default(5_000),
    probe_timeout_ms: z.int().positive().default(2_000),
    /** Consecutive failed probes before a provider is marked down. */
    down_after_failures: z.int().positive().default(2),
    breaker: breakerSchema.default(BREAKER_DEFAULTS),
    /** Latency and TTFT: EWMA weight of a new sample, and the sliding window for p50/p95. */
    ewma_alpha: z.number().gt(0).lte(1).default(0.2),
    window_samples: z.int().positive().default(200),
  })
  .default({
    probe_interval_ms: 5_000,
    probe_timeout_ms: 2_000,
    down_after_failures: 2,
    breaker: BREAKER_DEFAULTS,
    ewma_alpha: 0.2,
    window_samples: 200,
  });

const routingSchema = z.strictObject({
  /** Providers tried for one request (first try included). */
  max_attempts: z.int().positive().default(3),
  /**
   * Whole request, all attempts and the body/stream included. 30 minutes: an agent's turn with
   * long thinking streams for more than 10 (the attempts before the first byte are bounded by
   * first_byte_timeout_ms each anyway).
   */
  total_timeout_ms: z.int().positive().default(1_800_000),
  connect_timeout_ms: z.int().positive().default(5_000),
  /** Until the upstream's response headers; failover is still possible until then. */
  first_byte_timeout_ms: z.int().positive().default(120_000),
  /**
   * Longest silence between two body chunks (stream events or a non-stream body). 5 minutes:
   * Anthropic pings a stream while the model thinks, but OpenAI-format reasoning models can stay
   * silent for minutes before their first token.
   */
  idle_timeout_ms: z.int().positive().default(300_000),
  /** Adds `x-gateway-provider: <provider id>` to responses, for debugging. */
  provider_header: z.boolean().default(false),
  /** Edges ship passive samples (latency, TTFT, outcome) to the router in one batch per interval. */
  sample_flush_interval_ms: z.int().positive().default(250),
  /** A route table older than this is stale: the edge says so in /healthz and leans on its local breaker. */
  stale_after_ms: z.int().positive().default(90_000),
  /** The edge's own breaker, which acts before (and without) the router. */
  local_breaker_failures: z.int().positive().default(3),
  local_breaker_cooldown_ms: z.int().positive().default(10_000),
  /** Share of requests on which a half-open candidate is tried first (its trial traffic). */
  half_open_trial_fraction: z.number().gt(0).lte(1).default(0.05),
  /**
   * An agent session's requests (Claude Code's, Codex's, opencode's session ids) go to one provider
   * of the model while it is healthy, where their prompt cache is (docs/routing.md, "Stickiness").
   */
  sticky_sessions: z.boolean().default(true),
});
const ROUTING_DEFAULTS = routingSchema.parse({});

const workerSchema = z
  .strictObject({
    batch_max: z.int().positive().default(500),
    batch_wait_ms: z.int().positive().default(50),
    /** Credits granted to a user created without an explicit grant. */
    default_grant_credits: z.number().nonnegative().default(0),
    /** request_logs month partitions ending more than this many days ago are dropped (daily); 0 keeps all. */
    log_retention_days: z.int().nonnegative().default(90),
  })
  .default({ batch_max: 500, batch_wait_ms: 50, default_grant_credits: 0, log_retention_days: 90 });

/** Roles a user can hold (libs/db's USER_ROLES; config does not depend on the db lib). */
/** The console's roles (libs/db USER_ROLES; this lib does not depend on the database's). */
const CONSOLE_ROLES = ['admin', 'operator', 'auditor', 'member'] as const;
/** 'user' was renamed 'member' (issue 24): said so, not taken silently nor with a bare enum error. */
const consoleRole = z.enum(CONSOLE_ROLES, {
  error: (issue) =>
    issue.input === 'user'
      ? "the role 'user' is now called 'member'"
      : `must be one of ${CONSOLE_ROLES.join(', ')}`,
});
const claimName = z.string().min(1).max(200);
/** A team as teams_map names it: its name (membership), or the name and whether the user is its team admin. */
const oidcTeamName = z.string().trim().min(1, 'must be a team name').max(100, 'must be a team name');
const oidcTeamRef = z.union([
  oidcTeamName,
  z.strictObject({ team: oidcTeamName, admin: z.boolean().default(false) }),
]);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/**
 * Single sign-on with an OpenID Connect provider (Okta, Entra ID, Google, Keycloak, Dex...): the
 * console is a confidential (or, without a secret, public) client using the authorization code flow
 * with PKCE. The user's role and groups are mapped from ID token claims at every sign-in.
 */
const oidcSchema = z.strictObject({
  /** The issuer identifier; discovery reads {issuer}/.well-known/openid-configuration. */
  issuer: z.url({ protocol: /^https?$/ }),
  client_id: z.string().min(1).max(500),
  /** Names the environment variable holding the client secret; absent = a public client (PKCE only). */
  client_secret_env: envName.optional(),
  /** Shown on the sign-in page as "Sign in with {display_name}". */
  display_name: z.string().trim().min(1).max(60).default('single sign-on'),
  /** The callback registered at the provider; default {public_url}/api/auth/oidc/callback. */
  redirect_url: z.url({ protocol: /^https?$/ }).optional(),
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token'))
    .refine((s) => s.includes('openid'), 'must include openid')
    .default(['openid', 'email', 'profile']),
  /** The claim holding the user's email (Entra ID without the email claim: preferred_username). */
  email_claim: claimName.default('email'),
  /** Only these email domains may sign in (lowercase, no @); absent = any the provider vouches for. */
  allowed_email_domains: z
    .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a lowercase domain'))
    .min(1)
    .optional(),
  /** A claim (string or array of strings) whose values map to a role through role_values. */
  role_claim: claimName.optional(),
  /** Claim value -> role; a user whose values map to several roles gets the strongest (admin, operator, auditor, member). */
  role_values: z.record(z.string().min(1), consoleRole).default({}),
  /** The role of a user none of whose claim values is in role_values. */
  default_role: consoleRole.default('member'),
  /** A claim (string or array of strings) naming the user's groups at the provider. */
  groups_claim: claimName.optional(),
  /** Provider group -> gateway groups; absent = a provider group is taken when a gateway group has its name. */
  groups_map: z.record(z.string().min(1), z.array(z.string())).optional(),
  /**
   * A claim (string or array of strings) naming the user's teams at the provider. Set: at every
   * sign-in the user's team memberships become exactly the mapped teams that exist (docs/teams.md);
   * absent: admins manage memberships in the console.
   */
  teams_claim: claimName.optional(),
  /**
   * Provider value -> teams: a team name (a member) or `{ team, admin: true }` (a team admin);
   * absent = a provider value is taken as membership of the team with its name.
   */
  teams_map: z.record(z.string().min(1), z.array(oidcTeamRef)).optional(),
  /** false: the console refuses email and password sign-in (the bootstrap setup link still works). */
  password_sign_in: z.boolean().default(true),
  /** Leeway on the ID token's exp, iat and nbf for clocks that disagree. */
  clock_tolerance_ms: z.int().nonnegative().max(300_000).default(30_000),
  /** How long a sign-in started at the console may take at the provider before its state expires. */
  state_ttl_ms: z.int().positive().max(3_600_000).default(600_000),
});

const consoleSchema = z.strictObject({
  /** Where the console reaches the router's GET /routes; default http://{HOST}:{ROUTER_PORT}. */
  router_url: z
    .url({ protocol: /^https?$/ })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** The address people open (used in the setup link and for `Secure` cookies); default http://{HOST}:{CONSOLE_PORT}. */
  public_url: z
    .url({ protocol: /^https?$/ })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /**
   * The gateway address the console tells users to configure in their SDKs; default public_url
   * (one host serving /v1 and /, as the Ingress does), else http://{HOST}:{EDGE_PORT}.
   */
  gateway_url: z
    .url({ protocol: /^https?$/ })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Force `Secure` cookies (they are already Secure when public_url is https), e.g. behind a TLS proxy. */
  cookie_secure: z.boolean().default(false),
  /** Honour X-Forwarded-For for the client IP (sign-in throttling); only behind a proxy you run. */
  trust_proxy: z.boolean().default(false),
  /** A session ends after this long without a request. */
  session_ttl_ms: z.int().positive().default(43_200_000),
  /** Groups a user may use when an admin set none; default [default] when that group exists. */
  default_groups: z.array(z.string()).optional(),
  body_limit_bytes: z.int().positive().default(65_536),
  /** Failed sign-ins allowed per email and per client IP within the window, then 429 until it ends. */
  sign_in_max_failures_per_email: z.int().positive().default(5),
  sign_in_max_failures_per_ip: z.int().positive().default(50),
  sign_in_window_ms: z.int().positive().default(900_000),
  /** Single sign-on (OpenID Connect); absent = email and password only. */
  oidc: oidcSchema.optional(),
});
const CONSOLE_DEFAULTS = consoleSchema.parse({});

/** Per-minute limits, enforced across every edge in Redis; omitted = none (docs/quota.md). */
const rateLimitsSchema = z.strictObject({
  /** Requests per minute. */
  rpm: z.int().positive().optional(),
  /** Tokens (input + output) per minute. */
  tpm: z.int().positive().optional(),
});

/**
 * A group: its model ids, or `{ models, limits, translation, fallbacks }` where the limits hold for
 * each user of the group, `translation: strict` refuses (400) what a translation would otherwise
 * drop as a hint (docs/translation.md), and `fallbacks: false` keeps its requests on the model
 * they name (docs/routing.md, "Fallbacks").
 */
const groupSchema = z.union(
  [
    z.array(modelId),
    z.strictObject({
      models: z.array(modelId),
      limits: rateLimitsSchema.optional(),
      translation: z.enum(['lenient', 'strict']).default('lenient'),
      fallbacks: z.boolean().default(true),
    }),
  ],
  {
    error:
      'a list of model ids, or { models: [...], limits: { rpm, tpm }, translation: lenient|strict, fallbacks: true|false }',
  },
);

const quotaSchema = z.strictObject({
  /** How often the worker rebuilds the Redis balances of loaded users from Postgres. */
  reconcile_interval_ms: z.int().positive().default(60_000),
  /** A charge debited in Redis whose log has not reached Postgres after this long is taken as lost. */
  pending_max_age_ms: z.int().positive().default(86_400_000),
  /**
   * When quota cannot be checked (Redis unreachable, or Postgres while loading a balance): `admit`
   * keeps serving and bills afterwards (charges still reach Postgres, overdraw is bounded by the
   * outage); `refuse` answers 503 `quota_unavailable` so nobody spends past their balance.
   */
  when_unavailable: z.enum(['admit', 'refuse']).default('admit'),
});
const QUOTA_DEFAULTS = quotaSchema.parse({});

/** Streams cut by an edge's death are charged by estimate (docs/quota.md). */
const cutStreamsSchema = z.strictObject({
  /** An edge whose heartbeat is older than this is taken for dead; it refreshes it every third of it. */
  heartbeat_ttl_ms: z.int().min(300).default(30_000),
  /** How often the worker looks for markers of dead edges (and markers no stream can still need). */
  sweep_interval_ms: z.int().positive().default(10_000),
});
const CUT_STREAMS_DEFAULTS = cutStreamsSchema.parse({});

/**
 * Where providers, models and groups come from. `database` (default): the file seeds an empty
 * database at first boot, then operators change them live in the console and API, every change a
 * version. `file`: this file stays the truth (GitOps); the console shows it read-only.
 */
const configSourceSchema = z.strictObject({
  source: z.enum(['database', 'file']).default('database'),
});
const CONFIG_SOURCE_DEFAULTS = configSourceSchema.parse({});

/** The sections a configuration version holds; everything else stays in the file. */
export const LIVE_SECTIONS = ['providers', 'models', 'groups'] as const;

/**
 * The gateway's configuration schema around a provider entry's: libs/config names no provider
 * type, so the entry's schema (a discriminated union on `type`, from the providers' descriptors)
 * is composed one layer up, by `#libs/gateway-config`.
 */
export function gatewayConfigSchemaWith(providerEntry: ProviderEntrySchema) {
  return (
    z
      .strictObject({
        config: configSourceSchema.default(CONFIG_SOURCE_DEFAULTS),
        edge: edgeSchema,
        router: routerSchema,
        routing: routingSchema.default(ROUTING_DEFAULTS),
        worker: workerSchema,
        console: consoleSchema.default(CONSOLE_DEFAULTS),
        providers: z.array(providerEntry).min(1),
        models: z.array(modelSchema).min(1),
        groups: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), groupSchema),
        quota: quotaSchema.default(QUOTA_DEFAULTS),
        cut_streams: cutStreamsSchema.default(CUT_STREAMS_DEFAULTS),
      })
      .superRefine((cfg, ctx) => {
        const modelIds = new Set<string>();
        cfg.models.forEach((m, i) => {
          if (modelIds.has(m.id))
            ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model ${m.id}` });
          modelIds.add(m.id);
        });
        checkAliases(cfg.models, ctx);
        checkFallbacks(cfg.models, ctx);
        const providerIds = new Set<string>();
        cfg.providers.forEach((p, i) => {
          if (providerIds.has(p.id))
            ctx.addIssue({
              code: 'custom',
              path: ['providers', i, 'id'],
              message: `duplicate provider ${p.id}`,
            });
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
        for (const [name, group] of Object.entries(cfg.groups)) {
          const [ids, at] = Array.isArray(group) ? [group, []] : [group.models, ['models']];
          ids.forEach((id, j) => {
            if (!modelIds.has(id))
              ctx.addIssue({
                code: 'custom',
                path: ['groups', name, ...at, j],
                message: `unknown model ${id} (not in models)`,
              });
          });
        }
        cfg.console.default_groups?.forEach((g, i) => {
          if (!(g in cfg.groups))
            ctx.addIssue({
              code: 'custom',
              path: ['console', 'default_groups', i],
              message: `unknown group ${g}`,
            });
        });
        // A map nothing reads is a mistake to say at boot, not a silent no-op at every sign-in.
        if (cfg.console.oidc?.teams_map !== undefined && cfg.console.oidc.teams_claim === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['console', 'oidc', 'teams_map'],
            message: 'needs teams_claim (the claim whose values it maps)',
          });
        for (const [from, to] of Object.entries(cfg.console.oidc?.groups_map ?? {}))
          to.forEach((g, i) => {
            if (!(g in cfg.groups))
              ctx.addIssue({
                code: 'custom',
                path: ['console', 'oidc', 'groups_map', from, i],
                message: `unknown group ${g}`,
              });
          });
      })
      // `groups` keeps its simple shape (name -> model ids) for everything that reads it; the limits
      // of the `{ models, limits }` form move to `group_limits` (absent for a group without limits).
      .transform(({ groups, ...cfg }) => ({
        ...cfg,
        groups: Object.fromEntries(
          Object.entries(groups).map(([name, g]) => [name, Array.isArray(g) ? g : g.models]),
        ) as Record<string, string[]>,
        group_limits: Object.fromEntries(
          Object.entries(groups).flatMap(([name, g]) =>
            Array.isArray(g) || !g.limits ? [] : [[name, g.limits]],
          ),
        ) as Record<string, { rpm?: number | undefined; tpm?: number | undefined }>,
        strict_translation_groups: Object.entries(groups).flatMap(([name, g]) =>
          !Array.isArray(g) && g.translation === 'strict' ? [name] : [],
        ),
        /** Groups whose requests never fall back to another model (`fallbacks: false`). */
        no_fallback_groups: Object.entries(groups).flatMap(([name, g]) =>
          !Array.isArray(g) && !g.fallbacks ? [name] : [],
        ),
      }))
  );
}

/** The document's shape as written (providers as any entry: their schema is composed one layer up). */
export type GatewayConfigInput = Omit<z.input<ReturnType<typeof gatewayConfigSchemaWith>>, 'providers'> & {
  providers: ProviderEntryInput[];
};
export type GatewayConfig = z.output<ReturnType<typeof gatewayConfigSchemaWith>>;
export type ModelConfig = GatewayConfig['models'][number];
export type { ProviderConfig } from './provider-entry.js';
export type OidcConfig = NonNullable<GatewayConfig['console']['oidc']>;
