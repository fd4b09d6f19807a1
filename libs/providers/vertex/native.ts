import { type NativeRoute } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';
import { anthropicAdapter } from '../anthropic/index.js';
import { countTokensRoute as geminiCountTokensRoute, generateContentRoute } from '../gemini/index.js';
import { VERTEX_ANTHROPIC_VERSION, vertexPaths } from './endpoint.js';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Vertex refuses a content without a role ("Please use a valid role: user, model"), which Google
 * AI Studio reads as the user's: a client of the Gemini API sending one gets the same answer here.
 */
export function withRoles(contents: unknown): unknown {
  if (!Array.isArray(contents) || contents.every((c) => !isObject(c) || c.role !== undefined))
    return contents;
  return contents.map((c: unknown) => (isObject(c) && c.role === undefined ? { role: 'user', ...c } : c));
}

function withContentRoles(body: JsonObject): JsonObject {
  const contents = withRoles(body.contents);
  return contents === body.contents ? body : { ...body, contents };
}

/** A Gemini API client served by a Gemini model on Vertex: the body as for AI Studio, roles made explicit. */
export const vertexGenerateContentRoute: NativeRoute = {
  ...generateContentRoute,
  path: (model, stream) => (stream ? vertexPaths.stream(model) : vertexPaths.generate(model)),
  prepare: (body) => ({ body: withContentRoles(body), clientWantsUsage: true }),
};

/**
 * Vertex's `countTokens` takes the request's fields at the top level (`contents`,
 * `systemInstruction`, `tools`, `generationConfig`), where AI Studio also takes them wrapped in
 * `generateContentRequest` (with its own `model`): the wrapper is unwrapped, its model dropped
 * (the path names it). Free, and no generation, as on AI Studio.
 */
export const vertexCountTokensRoute: NativeRoute = {
  ...geminiCountTokensRoute,
  path: (model) => vertexPaths.countTokens(model),
  prepare: (body) => ({ body: unwrapCountRequest(body), clientWantsUsage: true }),
};

const WRAPPERS = ['generateContentRequest', 'generate_content_request'] as const;

function unwrapCountRequest(body: JsonObject): JsonObject {
  const key = WRAPPERS.find((k) => isObject(body[k]));
  if (key === undefined) return withContentRoles(body);
  const { [key]: inner, ...rest } = body;
  const { model: _model, ...fields } = inner as JsonObject;
  return withContentRoles({ ...rest, ...fields });
}

const claudeMessages = anthropicAdapter.native.messages!;
const claudeCountTokens = anthropicAdapter.native.count_tokens!;

/**
 * The Messages body as Claude on Vertex takes it: the model is in the path (not in the body), the
 * version in the body (`anthropic_version`, Vertex's own), everything else as Anthropic's API.
 */
export function rawPredictBody(body: JsonObject): JsonObject {
  const { model: _model, ...rest } = body;
  return { ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION };
}

/** An Anthropic Messages client served by a Claude model on Vertex (`rawPredict` / `streamRawPredict`). */
export const vertexMessagesRoute: NativeRoute = {
  ...claudeMessages,
  path: (model, stream) => vertexPaths.rawPredict(model, stream),
  prepare: (body) => ({ body: rawPredictBody(body), clientWantsUsage: true }),
};

/** Token counting: the `count-tokens` model, which takes the counted model in the body. */
export const vertexClaudeCountTokensRoute: NativeRoute = {
  ...claudeCountTokens,
  path: () => vertexPaths.anthropicCountTokens,
  prepare: (body, model) => ({
    body: { ...body, model, anthropic_version: VERTEX_ANTHROPIC_VERSION },
    clientWantsUsage: true,
  }),
};
