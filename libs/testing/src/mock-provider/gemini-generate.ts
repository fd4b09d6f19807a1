/**
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent`. Google's order: the
 * body is parsed (unknown names, bad values), then the model looked up, then the request checked.
 * Without `alt=sse` the stream is the JSON array Google sends then.
 */
import { geminiStreamError } from './gemini-errors.js';
import { modelId, modelNotFound } from './gemini-models.js';
import { geminiTooLong, tooLong } from './context-window.js';
import { planAnswer } from './gemini-plan.js';
import { responseBody, streamChunks, streamWrites } from './gemini-response.js';
import type { EndpointHandler } from './types.js';
import { parseGenerateRequest, validateGenerateRequest } from './validate-gemini.js';

export function generateContent(model: string, stream: boolean): EndpointHandler {
  return ({ body, behaviour, query }) => {
    const parsed = parseGenerateRequest(body);
    if ('refused' in parsed) return parsed.refused;
    const { request } = parsed;
    const id = modelId(model);
    if (!behaviour.geminiModels.includes(id)) {
      return modelNotFound(id, stream ? 'streamGenerateContent' : 'generateContent');
    }
    const invalid = validateGenerateRequest(request, id);
    if (invalid) return invalid;
    const plan = planAnswer(request, id, behaviour);
    if (tooLong(behaviour, plan.usage.prompt))
      return geminiTooLong(behaviour.contextWindow!, plan.usage.prompt);
    const withUsage = !behaviour.omitUsage;
    if (!stream) return { kind: 'json', status: 200, body: responseBody(plan, withUsage) };
    const framing = query.get('alt') === 'sse' ? 'sse' : 'array';
    return {
      kind: 'stream',
      writes: streamWrites(streamChunks(plan, withUsage), framing),
      ...(framing === 'array' && { contentType: 'application/json; charset=UTF-8' }),
      errorFrame: geminiStreamError(framing),
    };
  };
}
