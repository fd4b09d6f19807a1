/** Relative to an Anthropic base URL, which its SDK takes without /v1 (https://api.anthropic.com). */
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages';

/** The API version every request pins; the only one Anthropic has published for Messages. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic requires `max_tokens`; OpenAI-format clients may omit it. 4096 is the largest value
 * every current and past Claude model accepts (Claude 3 Haiku and Opus cap output at 4096), so a
 * default can never be rejected for exceeding the model's limit. With thinking on, the budget is
 * added on top, because Anthropic counts thinking inside `max_tokens`.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * `reasoning_effort` -> thinking budget. Anthropic's minimum budget is 1024; the others grow by
 * 4x per level, the spacing OpenAI's effort levels roughly have in reasoning tokens.
 */
export const EFFORT_BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 32768 } as const;

/** Thinking budget -> `reasoning_effort`, the inverse of EFFORT_BUDGET by nearest level. */
export function effortOfBudget(budget: number): 'low' | 'medium' | 'high' {
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

/** Token counting, beside Messages; its answer is `{ "input_tokens": N }`. */
export const ANTHROPIC_COUNT_TOKENS_PATH = '/v1/messages/count_tokens';
