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
import type { EndpointHandler } from './types.js';
import { validateContents } from './validate-gemini-contents.js';
import { validateGenerateRequest } from './validate-gemini.js';

const NESTED = 'CountTokensRequest.generate_content_request';

export function countGeminiTokens(model: string): EndpointHandler {
  return ({ body, behaviour }) => {
    const violations: Violation[] = [];
    const request = parseMessage(body, CountTokensRequest, '', violations) as GeminiCountTokensRequest;
    if (violations.length > 0) return geminiBadPayload(violations);
    const id = modelId(model);
    if (!behaviour.geminiModels.includes(id)) return modelNotFound(id, 'countTokens');
    const inner = request.generateContentRequest;
    const invalid = inner ? nested(inner, request) : validateContents(request.contents, 'CountTokensRequest');
    if (invalid) return invalid;
    const counted: GeminiRequest = inner ?? { contents: request.contents ?? [] };
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
