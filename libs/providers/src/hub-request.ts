import { type Adjustments } from './adjustments.js';
import { type ChatMessage, type ChatRequest } from './chat.js';
import { checkExpressible, type HubFieldRules } from './hub-fields.js';
import { invalid } from './translation-errors.js';

/**
 * Readings of a hub request that translators to the Claude-style targets (Anthropic, Converse)
 * share: the same hub field means the same thing to each, so it is checked in one wording.
 */

/** The request's messages once every field was checked against the target's rules. */
export function hubMessages(
  req: ChatRequest,
  rules: HubFieldRules,
  adjust: Adjustments,
): readonly ChatMessage[] {
  checkExpressible(req, rules, adjust);
  if (!Array.isArray(req.messages)) throw invalid('messages', 'messages must be an array.');
  return req.messages;
}

/**
 * The output cap the client asked for (`max_completion_tokens`, else `max_tokens`, OpenAI's older
 * name for it), or undefined when it named none. Refused unless a positive integer.
 */
export function askedOutputCap(req: ChatRequest): number | undefined {
  const asked = req.max_completion_tokens ?? req.max_tokens;
  if (asked === undefined || asked === null) return undefined;
  const param = req.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  if (!Number.isInteger(asked) || asked < 1) throw invalid(param, `${param} must be a positive integer.`);
  return asked;
}

/**
 * `temperature` for a target whose range is 0..1 (OpenAI's is 0..2): a value above 1 would be
 * refused upstream in the vendor's words, so it is refused here naming the field. `target`: "a
 * Bedrock provider".
 */
export function unitTemperature(temperature: unknown, target: string): number {
  if (typeof temperature !== 'number' || temperature < 0 || temperature > 1) {
    throw invalid('temperature', `temperature must be between 0 and 1 for ${target} (its range is 0..1).`);
  }
  return temperature;
}

/** Thinking budget per `reasoning_effort` level; `minimal` is the smallest budget the target takes. */
export type EffortBudgets = Readonly<Record<'minimal' | 'low' | 'medium' | 'high', number>>;

/**
 * `reasoning_effort` -> a thinking budget that fits the asked output cap. OpenAI's cap includes
 * reasoning tokens, Claude's includes thinking: the budget must leave a token for the answer, and
 * a cap too small for the smallest budget is refused. `who` names the target ("a Claude model on
 * Bedrock").
 */
export function fittedEffortBudget(
  req: ChatRequest,
  effort: string,
  budgets: EffortBudgets,
  who: string,
): number {
  if (!(effort in budgets))
    throw invalid('reasoning_effort', 'reasoning_effort must be minimal, low, medium or high.');
  const budget = budgets[effort as keyof EffortBudgets];
  const cap = req.max_completion_tokens ?? req.max_tokens;
  if (cap === undefined || cap === null) return budget;
  const fitted = Math.min(budget, cap - 1);
  if (fitted < budgets.minimal) {
    throw invalid(
      'max_completion_tokens',
      `With reasoning_effort, ${who} needs max_completion_tokens above ${budgets.minimal}.`,
    );
  }
  return fitted;
}
