import { type Adjustments } from './adjustments.js';
import { type ChatMessage, type ChatRequest, type ChatToolCall } from './chat.js';
import { invalid, unsupported } from './translation-errors.js';

/**
 * Checks of hub fields that a client translator may have passed through as the client sent them
 * (the chat client keeps fields as they are): provider translators read them through these.
 */

/** `stop` as a list (a string is one sequence); undefined when absent or empty. */
export function stopList(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
    throw invalid('stop', 'stop must be a string or an array of strings.');
  }
  return list.length > 0 ? [...list] : undefined;
}

/** An assistant's tool call, checked to have the id and name every target needs. */
export function checkedToolCall(call: unknown, where: string): ChatToolCall {
  const c = call as Partial<ChatToolCall> | null;
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.id !== 'string' ||
    typeof c.function !== 'object' ||
    c.function === null ||
    typeof c.function.name !== 'string'
  ) {
    throw invalid(where, `${where} must be a function call with an id and a name.`);
  }
  return c as ChatToolCall;
}

/**
 * A call's arguments as the JSON object Anthropic, Converse and Gemini take (the hub carries
 * them as JSON text, as OpenAI does); an empty string means none. `target`: "a Bedrock provider".
 */
export function toolArgumentsObject(args: unknown, at: string, target: string): Record<string, unknown> {
  if (args === '' || args === undefined || args === null) return {};
  let parsed: unknown;
  try {
    parsed = typeof args === 'string' ? JSON.parse(args) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid(at, `${at} must be a JSON object to send to ${target}.`);
  return parsed as Record<string, unknown>;
}

/** The call a tool message answers: its id, required. */
export function toolCallIdOf(m: ChatMessage, at: string): string {
  if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '')
    throw invalid(`${at}.tool_call_id`, `${at}.tool_call_id is required on a tool message.`);
  return m.tool_call_id;
}

/**
 * Hub fields that tune OpenAI's machinery and change nothing the model generates: a target with
 * no place for one drops it as a hint, recorded. `user` and `safety_identifier` name an end user,
 * `store` and `metadata` tag OpenAI's stored completions, `service_tier` picks OpenAI capacity,
 * `prompt_cache_key` is a cache-routing hint.
 */
const HINTS = ['user', 'safety_identifier', 'store', 'metadata', 'service_tier', 'prompt_cache_key'];

/**
 * Fields fine at their default and inexpressible at any other where a target has no equivalent:
 * one choice, no log probabilities, no penalties or biases, no seed (reproducible sampling).
 */
const DEFAULT_ONLY: readonly (readonly [string, (v: unknown) => boolean])[] = [
  ['n', (v) => v === 1],
  ['logprobs', (v) => v === false],
  ['top_logprobs', (v) => v === 0],
  ['presence_penalty', (v) => v === 0],
  ['frequency_penalty', (v) => v === 0],
  ['logit_bias', (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0],
  ['seed', () => false],
];

/** What a translator does with each hub field: carry it, drop it as a hint, or allow only its default. */
export interface HubFieldRules {
  readonly mapped: ReadonlySet<string>;
  readonly ignored: ReadonlySet<string>;
  readonly defaults: readonly (readonly [string, (v: unknown) => boolean])[];
  /** Names the target in refusals ("a Bedrock provider"). */
  readonly target: string;
}

/**
 * The rules of a target that carries `carried`: every other hint is dropped, every other
 * default-only field allowed at its default only, anything else refused.
 */
export function hubFieldRules(target: string, carried: readonly string[]): HubFieldRules {
  const carries = new Set(carried);
  const defaults = DEFAULT_ONLY.filter(([key]) => !carries.has(key));
  return {
    mapped: new Set([...carried, ...defaults.map(([key]) => key)]),
    ignored: new Set(HINTS.filter((key) => !carries.has(key))),
    defaults,
    target,
  };
}

/** Drops (recorded on `adjust`) what the rules ignore; refuses with a 400 what the target cannot express. */
export function checkExpressible(req: ChatRequest, rules: HubFieldRules, adjust: Adjustments): void {
  const fields = req as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (rules.ignored.has(key)) adjust.drop(key);
    else if (!rules.mapped.has(key)) throw unsupported(key, rules.target);
  }
  for (const [key, isDefault] of rules.defaults) {
    const value = fields[key];
    if (value !== undefined && value !== null && !isDefault(value)) throw unsupported(key, rules.target);
  }
}
