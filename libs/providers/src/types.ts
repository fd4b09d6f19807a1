/** Token usage in the gateway's canonical form; every vendor maps into this inside its folder. */
export interface CanonicalUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
}

/** A JSON object body as the client sent it; unknown fields are kept untouched. */
export type JsonObject = Record<string, unknown>;
