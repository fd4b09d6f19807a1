/**
 * `generateContent` request validation after the body parsed (see gemini-proto.ts), as the Gemini
 * API answers it, for the model of the path: contents and turns, the system instruction,
 * generation settings, thinking per model family, tools, cached content and Gemini 3's thought
 * signatures. Messages come from public bug reports; the range messages are Google's wording as
 * Vertex AI reports it (the Gemini API's own was not found), and the thinking-level messages are
 * approximated from Google's Interactions API.
 */
import type {
  GeminiGenerationConfig,
  GeminiRequest,
  GeminiThinkingConfig,
} from '../../../providers/gemini/wire.js';
import { geminiBadPayload, geminiError, geminiFieldError, geminiInvalid } from './gemini-errors.js';
import { familyOf, type GeminiFamily, type ThinkingRules } from './gemini-models.js';
import { parseMessage, type Violation } from './gemini-proto.js';
import { GenerateContentRequest } from './gemini-proto-messages.js';
import { checkSignatures } from './gemini-signatures.js';
import type { Check } from './params.js';
import type { JsonObject, JsonReply } from './types.js';
import { content, validateContents } from './validate-gemini-contents.js';
import { validateTools } from './validate-gemini-tools.js';

const MAX_STOP_SEQUENCES = 5;
const MAX_CANDIDATES = 8;

/** A generateContent body as Google's front end parses it: the request (camelCase names), or its 400. */
export function parseGenerateRequest(body: JsonObject): { request: GeminiRequest } | { refused: JsonReply } {
  const violations: Violation[] = [];
  const request = parseMessage(body, GenerateContentRequest, '', violations) as unknown as GeminiRequest;
  return violations.length > 0 ? { refused: geminiBadPayload(violations) } : { request };
}

/**
 * Everything the mock refuses in a generateContent body for `model` (whether the model is served
 * aside): the 400 Google would send, or null. For unit tests of what a translator builds.
 */
export function validateGeminiRequest(body: JsonObject, model: string): Check {
  const parsed = parseGenerateRequest(body);
  return 'refused' in parsed ? parsed.refused : validateGenerateRequest(parsed.request, model);
}

/** `at` names the request message in field errors (countTokens nests a GenerateContentRequest). */
export function validateGenerateRequest(
  request: GeminiRequest,
  model: string,
  at = 'GenerateContentRequest',
): Check {
  const family = familyOf(model);
  const config = request.generationConfig ?? {};
  return (
    validateContents(request.contents, at) ??
    (request.systemInstruction ? content(request.systemInstruction, `${at}.system_instruction`) : null) ??
    generation(config, family, `${at}.generation_config`) ??
    thinking(config.thinkingConfig, family.thinking) ??
    validateTools(request.tools, at) ??
    cachedContent(request) ??
    (family.signaturesRequired ? checkSignatures(request.contents) : null)
  );
}

function generation(config: GeminiGenerationConfig, family: GeminiFamily, at: string): Check {
  if ((config.stopSequences?.length ?? 0) > MAX_STOP_SEQUENCES) {
    return geminiFieldError(`${at}.stop_sequences`, 'the number of stop_sequences must not exceed 5.');
  }
  const { temperature, candidateCount, maxOutputTokens } = config;
  if (temperature !== undefined && (temperature < 0 || temperature > 2)) {
    return outOfRange('temperature', temperature, 0, '2.0001');
  }
  if (candidateCount !== undefined && candidateCount > 1 && !family.multipleCandidates) {
    return geminiInvalid('Multiple candidates is not enabled for this model');
  }
  if (candidateCount !== undefined && (candidateCount < 0 || candidateCount > MAX_CANDIDATES)) {
    return outOfRange('candidateCount', candidateCount, 1, String(MAX_CANDIDATES + 1));
  }
  if (maxOutputTokens !== undefined && (maxOutputTokens < 0 || maxOutputTokens > family.outputTokenLimit)) {
    return outOfRange('maxOutputTokens', maxOutputTokens, 1, String(family.outputTokenLimit + 1));
  }
  return null;
}

function outOfRange(name: string, value: number, min: number, maxExclusive: string): Check {
  return geminiInvalid(
    `Unable to submit request because it has a ${name} value of ${value} but the supported range is from ${min} (inclusive) to ${maxExclusive} (exclusive). Update the value and try again.`,
  );
}

function thinking(config: GeminiThinkingConfig | undefined, rules: ThinkingRules | null): Check {
  if (config === undefined) return null;
  const { thinkingBudget: budget, thinkingLevel } = config;
  const level = thinkingLevel === 'THINKING_LEVEL_UNSPECIFIED' ? undefined : thinkingLevel;
  if (rules === null) {
    const asksThinking = (budget !== undefined && budget !== 0) || config.includeThoughts === true || level;
    return asksThinking ? geminiInvalid('thinking_config is not supported.') : null;
  }
  if (level !== undefined) return thinkingLevelCheck(level, budget, rules);
  if (budget === undefined || budget === -1) return null;
  if (budget === 0) {
    return rules.canDisable
      ? null
      : geminiInvalid('Budget 0 is invalid. This model only works in thinking mode.');
  }
  return budget < rules.min || budget > rules.max
    ? geminiInvalid(`The thinking budget (${budget}) is invalid.`)
    : null;
}

function thinkingLevelCheck(level: string, budget: number | undefined, rules: ThinkingRules): Check {
  if (rules.levels === null) return geminiInvalid('Thinking level is not supported for this model.');
  if (budget !== undefined) {
    return geminiInvalid('You can only set only one of thinking budget and thinking level.');
  }
  if (rules.levels.includes(level)) return null;
  const allowed = rules.levels.map((l) => l.toLowerCase()).join(', ');
  return geminiInvalid(
    `'${level.toLowerCase()}' is not a supported thinking level for this model. Allowed values are: ${allowed}.`,
  );
}

/** The mock holds no caches: any `cachedContents/{id}` exists, anything else is not found. */
function cachedContent(request: GeminiRequest): Check {
  const name = request.cachedContent;
  if (name === undefined) return null;
  if (!/^cachedContents\/[^/]+$/.test(name)) {
    return geminiError(403, 'CachedContent not found (or permission denied)');
  }
  return request.systemInstruction || request.tools || request.toolConfig
    ? geminiInvalid(
        'Tool config, tools and system instruction should not be set in the request when using cached content.',
      )
    : null;
}
