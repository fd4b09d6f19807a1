/**
 * Google's paths under `/v1beta/models`: the list, one model, and `{model}:{method}` (the model
 * segment ends at the colon; an encoded colon is taken too).
 */
import { countGeminiTokens } from './gemini-count-tokens.js';
import { generateContent } from './gemini-generate.js';
import { getGeminiModel, listGeminiModels } from './gemini-models.js';
import type { EndpointHandler, Route, Vendor } from './types.js';

export const GEMINI_PREFIX = '/v1beta/';
const MODELS = '/v1beta/models';

const gemini = (): Vendor => 'gemini';

const METHODS: Readonly<Record<string, (model: string) => EndpointHandler>> = {
  generateContent: (model) => generateContent(model, false),
  streamGenerateContent: (model) => generateContent(model, true),
  countTokens: countGeminiTokens,
};

export function findGeminiRoute(method: string, path: string): Route | undefined {
  if (path === MODELS)
    return method === 'GET' ? { vendor: gemini, handle: listGeminiModels, hasBody: false } : undefined;
  if (!path.startsWith(`${MODELS}/`)) return undefined;
  const rest = decoded(path.slice(MODELS.length + 1));
  if (rest === null) return undefined;
  const colon = rest.lastIndexOf(':');
  if (colon < 0) {
    return method === 'GET' && rest !== ''
      ? { vendor: gemini, handle: (input) => getGeminiModel(rest, input), hasBody: false }
      : undefined;
  }
  const handler = method === 'POST' ? METHODS[rest.slice(colon + 1)] : undefined;
  return handler ? { vendor: gemini, handle: handler(rest.slice(0, colon)), hasBody: true } : undefined;
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null; // a malformed escape: no such model path
  }
}
