import { type Adjustments } from '../src/adjustments.js';
import { type ChatRequest } from '../src/chat.js';
import { enumOf, invalid, isObject, numberAt, read, unknownKeyIn } from './client-fields.js';

type Effort = NonNullable<ChatRequest['reasoning_effort']>;

const THINKING = 'generationConfig.thinkingConfig';
const THINKING_FIELDS: ReadonlySet<string> = new Set(['includeThoughts', 'thinkingBudget', 'thinkingLevel']);
const LEVELS: Readonly<Record<string, Effort>> = {
  MINIMAL: 'minimal',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

/** The least thinking budget the hub's `thinking` carries (Anthropic refuses less than 1024). */
const LEAST_BUDGET = 1024;

/**
 * `thinkingConfig`: a budget N > 0 -> hub `thinking` (at least 1024) with the effort of that
 * budget; 0 -> thinking disabled; -1 (the model decides) -> effort medium, the middle of what it
 * may choose. `thinkingLevel` -> the effort of that name. `includeThoughts` goes nowhere here: it
 * decides whether the answer shows the reasoning (client-response.ts reads it from the request).
 */
export function thinkingOf(raw: unknown, adjust: Adjustments): Partial<ChatRequest> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw invalid(THINKING, "Invalid value at 'generation_config.thinking_config'.");
  const unknown = unknownKeyIn(raw, THINKING_FIELDS, THINKING);
  if (unknown) throw unknown;
  const include = read(raw, 'includeThoughts');
  if (include != null && typeof include !== 'boolean')
    throw invalid(
      `${THINKING}.includeThoughts`,
      `Invalid value at 'generation_config.thinking_config.include_thoughts': expected a boolean.`,
    );
  const budget = numberAt(raw, 'thinkingBudget', THINKING, true);
  const level = enumOf(read(raw, 'thinkingLevel'), `${THINKING}.thinkingLevel`);
  if (level !== undefined && level !== 'THINKING_LEVEL_UNSPECIFIED') {
    if (budget !== undefined)
      throw invalid(
        `${THINKING}.thinkingLevel`,
        `${THINKING}: thinkingBudget and thinkingLevel cannot both be set.`,
      );
    const effort = LEVELS[level];
    if (!effort)
      throw invalid(
        `${THINKING}.thinkingLevel`,
        `Invalid value at 'generation_config.thinking_config.thinking_level' (${level}).`,
      );
    return { reasoning_effort: effort };
  }
  if (budget === undefined) return {};
  if (budget === 0) return { thinking: { type: 'disabled' } };
  if (budget === -1) return { reasoning_effort: 'medium' };
  if (budget < 0)
    throw invalid(
      `${THINKING}.thinkingBudget`,
      `${THINKING}.thinkingBudget must be -1, 0 or a positive number of tokens.`,
    );
  if (budget < LEAST_BUDGET)
    adjust.carried(`carried ${THINKING}.thinkingBudget ${budget} as thinking budget ${LEAST_BUDGET}`);
  return {
    thinking: { type: 'enabled', budget_tokens: Math.max(budget, LEAST_BUDGET) },
    reasoning_effort: effortOfBudget(budget),
  };
}

/** The same thresholds the Messages client uses for Anthropic budgets. */
const effortOfBudget = (budget: number): Effort =>
  budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
