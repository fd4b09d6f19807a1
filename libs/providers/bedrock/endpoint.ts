/**
 * Bedrock Runtime's paths, relative to the provider's base URL
 * (`https://bedrock-runtime.{region}.amazonaws.com`, or a VPC endpoint). The model ID sits in the
 * path, URL-encoded: an ARN or an inference profile ID (`us.anthropic...`, `global.anthropic...`)
 * holds `:` and `/`, which must not split the path.
 */
export function conversePath(modelId: string, stream: boolean): string {
  return `/model/${encodeURIComponent(modelId)}/${stream ? 'converse-stream' : 'converse'}`;
}

/** InvokeModel and InvokeModelWithResponseStream: the model's own body (Anthropic's Messages body). */
export function invokePath(modelId: string, stream: boolean): string {
  return `/model/${encodeURIComponent(modelId)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
}

/** The Messages API version Bedrock takes in the body of an Anthropic model's InvokeModel request. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Claude on Converse: `reasoning_effort` -> the thinking budget (Anthropic's own levels, as the
 * anthropic folder maps them; 1024 is Anthropic's minimum).
 */
export const EFFORT_BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 32768 } as const;

/** The output cap sent with thinking when the client named none: Anthropic counts thinking inside it. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Whether a Bedrock model ID (a foundation model, an inference profile, an ARN) is Anthropic's Claude. */
export function isAnthropicModel(modelId: string): boolean {
  return /(^|[.:/])anthropic\./.test(modelId);
}
