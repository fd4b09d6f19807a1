/**
 * `POST /v1beta/models/{model}:countTokens`: `{ totalTokens }` for `contents`, or for a whole
 * `generateContentRequest` (its system instruction and tools counted, its cache reported), the
 * same count `generateContent` reports as `promptTokenCount`.
 */
import type { GeminiCountTokensRequest, GeminiRequest } from '../../../providers/gemini/wire.js';
import { geminiBadPayload, geminiFieldError } from './gemini-errors.js';
import { modelId, modelNotFound } from './gemini-models.js';
import { parseMessage, type Violation } from './gemini-proto.js';
import { CountTokensRequest } from './gemini-proto-messages.js';
import { EXPLICIT_CACHE_TOKENS, IMAGE_TOKENS, promptOf } from './gemini-plan.js';
import type { Check } from './params.js';
import type { EndpointHandler, JsonObject, JsonReply } from './types.js';
import { validateContents } from './validate-gemini-contents.js';
import { validateGenerateRequest } from './validate-gemini.js';

const NESTED = 'CountTokensRequest.generate_content_request';

export function countGeminiTokens(model: string): EndpointHandler {
  return ({ body, behaviour }) => {
    const checked = checkCountTokens(body);
    if ('refused' in checked && !checked.afterParse) return checked.refused;
    const id = modelId(model);
    if (!behaviour.geminiModels.includes(id)) return modelNotFound(id, 'countTokens');
    if ('refused' in checked) return checked.refused;
    const counted = checked.counted;
    const cached = counted.cachedContent ? behaviour.cachedTokens || EXPLICIT_CACHE_TOKENS : 0;
    const prompt = promptOf(counted);
    const images = prompt.images * IMAGE_TOKENS;
    return {
      kind: 'json',
      status: 200,
      body: {
        totalTokens: prompt.tokens + cached,
        ...(cached > 0 && { cachedContentTokenCount: cached }),
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: prompt.tokens + cached - images },
          ...(images > 0 ? [{ modality: 'IMAGE', tokenCount: images }] : []),
        ],
      },
    };
  };
}

/** What the mock refuses in a countTokens body (whether the model is served aside), or null. */
export function validateGeminiCountTokensRequest(body: JsonObject): Check {
  const checked = checkCountTokens(body);
  return 'refused' in checked ? checked.refused : null;
}

type Checked = { counted: GeminiRequest } | { refused: JsonReply; afterParse: boolean };

/** Parsed, then checked: the model is looked up between the two, as for generateContent. */
function checkCountTokens(body: JsonObject): Checked {
  const violations: Violation[] = [];
  const request = parseMessage(body, CountTokensRequest, '', violations) as GeminiCountTokensRequest;
  if (violations.length > 0) return { refused: geminiBadPayload(violations), afterParse: false };
  const inner = request.generateContentRequest;
  const invalid = inner
    ? nested(inner, request)
    : validateContents(request.contents, 'CountTokensRequest', false);
  if (invalid) return { refused: invalid, afterParse: true };
  return { counted: inner ?? { contents: request.contents ?? [] } };
}

/** Wording approximated: Google's messages for these two were not found in public reports. */
function nested(inner: GeminiRequest & { model?: string }, request: GeminiCountTokensRequest): Check {
  if (request.contents !== undefined) {
    return geminiFieldError(
      'CountTokensRequest',
      'only one of contents and generate_content_request may be set.',
    );
  }
  if (!inner.model) return geminiFieldError(`${NESTED}.model`, 'model is not specified');
  return validateGenerateRequest(inner, modelId(inner.model), NESTED);
}
