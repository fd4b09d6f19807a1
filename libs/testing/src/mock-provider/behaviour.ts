import { z } from 'zod';
import { type AzureBehaviour, DEFAULT_AZURE } from './azure.js';
import { DEFAULT_VERTEX, type VertexBehaviour } from './vertex.js';

/** How the mock answers. Every knob can be changed at runtime (API or `POST /__mock/behaviour`). */
export interface MockBehaviour {
  /** Delay before the response headers of a non-stream answer (errors included). */
  latencyMs: number;
  /** Delay between the stream's headers and its first chunk. */
  ttftMs: number;
  /** How many content deltas a stream has (the reply is split into this many pieces). */
  chunkCount: number;
  /** Delay between two stream chunks after the first. */
  chunkIntervalMs: number;
  /** 0..1 probability that a request is answered with `failStatus`. */
  failureRate: number;
  /** When set, injected failures hit only this path (so probes of the model list stay healthy). */
  failurePath: string | null;
  /** Status of injected failures (500, 429, 503, 529...), with the vendor's error body. */
  failStatus: number;
  /** `retry-after` seconds sent with injected 429/503/529. */
  retryAfterSeconds: number;
  /** Accept requests and never answer them. */
  hang: boolean;
  /** Destroy the socket after the first chunks of a stream (or half a non-stream body). */
  resetMidStream: boolean;
  /** End a stream after its first chunks with the vendor's own error event (an overloaded upstream). */
  midStreamError: boolean;
  /** When set, requests without this key get the vendor's real 401 body. */
  requireApiKey: string | null;
  /** Exact reply text instead of the deterministic "This is a mock reply to: ..." sentence. */
  reply: string | null;
  /** Prompt tokens reported as served from cache (capped at the prompt's size). */
  cachedTokens: number;
  /**
   * Prompt tokens reported as written to the cache, after the reads (capped at what is left):
   * Anthropic reports them in `cache_creation_input_tokens` and `cache_creation.ephemeral_5m/1h`,
   * OpenAI formats their sum in `prompt_tokens_details.cache_write_tokens` (Responses:
   * `input_tokens_details`), only when not 0.
   */
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  /**
   * Output tokens a chat completion reports as audio (`completion_tokens_details.audio_tokens`),
   * counted in `completion_tokens` on top of the reply's text: the speech of an audio model's
   * answer (the body still carries the text only).
   */
  audioOutputTokens: number;
  /**
   * How many searches a Messages answer runs when the request has Anthropic's web search tool and
   * the prompt asks to search (each a server_tool_use and result block pair, counted in
   * `usage.server_tool_use.web_search_requests`); at most the tool's `max_uses`.
   */
  webSearchCount: number;
  /**
   * Report no usage, as some OpenAI-compatible servers do: no `usage` on non-stream answers, and
   * chat streams without their usage chunk even when `stream_options.include_usage` asks.
   */
  omitUsage: boolean;
  /**
   * Prompt tokens the mock's models take (4 characters a token); a longer prompt gets each vendor's
   * own refusal (OpenAI's `context_length_exceeded`, in-band on a Responses stream; Anthropic's
   * "prompt is too long"; Google's input token count). null: any length.
   */
  contextWindow: number | null;
  /** Embedding size when the request has no `dimensions`. */
  embeddingDimensions: number;
  /** Model ids served by `GET /v1/models`. */
  models: string[];
  /**
   * Gemini model ids served under `/v1beta/models` (any other gets Google's 404). Their family
   * (limits, thinking rules, signatures) comes from the id's prefix: `gemini-2.5-pro...`.
   */
  geminiModels: string[];
  /** How many received requests `requests` keeps (oldest dropped first). */
  requestLogSize: number;
  /** The Azure OpenAI resource played under `/openai/` (keys, trusted Entra ID keys, deployments). */
  azure: AzureBehaviour;
  /** Vertex AI played under `/v1/projects/` (trusted Google token keys, projects, locations, Claude and embedding models). */
  vertex: VertexBehaviour;
}

export const DEFAULT_BEHAVIOUR: Readonly<MockBehaviour> = Object.freeze({
  latencyMs: 0,
  ttftMs: 0,
  chunkCount: 8,
  chunkIntervalMs: 0,
  failureRate: 0,
  failurePath: null,
  failStatus: 500,
  retryAfterSeconds: 1,
  hang: false,
  resetMidStream: false,
  midStreamError: false,
  requireApiKey: null,
  reply: null,
  cachedTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  audioOutputTokens: 0,
  webSearchCount: 1,
  omitUsage: false,
  contextWindow: null,
  embeddingDimensions: 16,
  models: [
    'mock-gpt',
    'mock-claude',
    'mock-embedding',
    'gpt-4o-mini',
    'gpt-4.1',
    'text-embedding-3-small',
    'claude-sonnet-4-6',
  ],
  geminiModels: [
    'gemini-2.5-flash',
    'gemini-2.5-pro',
    'gemini-2.5-flash-lite',
    'gemini-2.0-flash',
    'gemini-3-pro-preview',
    'gemini-3-flash-preview',
  ],
  requestLogSize: 200,
  azure: DEFAULT_AZURE,
  vertex: DEFAULT_VERTEX,
});

const ms = z.number().int().min(0).max(600_000);

/** Validates a partial behaviour received over HTTP; unknown knobs are rejected so typos show. */
export const behaviourPatchSchema = z
  .object({
    latencyMs: ms,
    ttftMs: ms,
    chunkCount: z.number().int().min(1).max(100_000),
    chunkIntervalMs: ms,
    failureRate: z.number().min(0).max(1),
    failurePath: z.string().startsWith('/').nullable(),
    failStatus: z.number().int().min(400).max(599),
    retryAfterSeconds: z.number().int().min(0).max(3600),
    hang: z.boolean(),
    resetMidStream: z.boolean(),
    midStreamError: z.boolean(),
    requireApiKey: z.string().min(1).nullable(),
    reply: z.string().nullable(),
    cachedTokens: z.number().int().min(0),
    cacheWrite5mTokens: z.number().int().min(0),
    cacheWrite1hTokens: z.number().int().min(0),
    audioOutputTokens: z.number().int().min(0),
    webSearchCount: z.number().int().min(1).max(20),
    omitUsage: z.boolean(),
    contextWindow: z.number().int().min(1).nullable(),
    embeddingDimensions: z.number().int().min(1).max(8192),
    models: z.array(z.string().min(1)),
    geminiModels: z.array(z.string().min(1)),
    requestLogSize: z.number().int().min(0).max(100_000),
    azure: z.strictObject({
      apiKey: z.string().min(1).nullable(),
      entraKeys: z.array(z.string().startsWith('-----BEGIN PUBLIC KEY-----')),
      deployments: z.record(z.string().min(1), z.string().min(1)),
    }),
    vertex: z.strictObject({
      googleKeys: z.array(z.string().startsWith('-----BEGIN PUBLIC KEY-----')),
      projects: z.array(z.string().min(1)),
      locations: z.array(z.string().min(1)),
      anthropicModels: z.array(z.string().min(1)),
      embeddingModels: z.array(z.string().min(1)).optional(),
    }),
  })
  .partial()
  .strict();

export type MockBehaviourPatch = Partial<MockBehaviour>;

/** A new behaviour with the patch applied; throws (zod) when a knob is out of range. */
export function applyBehaviour(current: MockBehaviour, patch: unknown): MockBehaviour {
  const parsed = behaviourPatchSchema.parse(patch);
  return {
    ...current,
    ...parsed,
    models: parsed.models ? [...parsed.models] : current.models,
    geminiModels: parsed.geminiModels ? [...parsed.geminiModels] : current.geminiModels,
  };
}
