import { type NativeRoute } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';
import { isObject } from './mapping.js';
import { usageFromGeminiBody } from './usage.js';
import { geminiPaths } from './wire.js';
import { geminiWire } from './wire-format.js';

/**
 * A Gemini client served by a Gemini provider: the body passes through unchanged, since the
 * model is in the path, and every stream carries its usage unasked (nothing to take back out).
 */
export const generateContentRoute: NativeRoute = {
  path: (model, stream) => (stream ? geminiPaths.stream(model) : geminiPaths.generate(model)),
  wire: geminiWire,
  prepare: (body) => ({ body, clientWantsUsage: true }),
  usageOfBody: usageFromGeminiBody,
  usageMember: 'usageMetadata',
};

/**
 * `countTokens`: free, and no generation. Its `generateContentRequest` form names the model
 * again in the body (`models/{model}`), as the client called it: that one is the upstream's too.
 */
export const countTokensRoute: NativeRoute = {
  path: (model) => geminiPaths.countTokens(model),
  wire: null,
  prepare: (body, model) => ({ body: withUpstreamModel(body, model), clientWantsUsage: true }),
  usageOfBody: () => null,
  usageMember: null,
};

function withUpstreamModel(body: JsonObject, model: string): JsonObject {
  const inner = body.generateContentRequest;
  if (!isObject(inner)) return body;
  return { ...body, generateContentRequest: { ...inner, model: `models/${model}` } };
}
