import type { IncomingHttpHeaders } from 'node:http';
import { countTokens } from './anthropic-count-tokens.js';
import { messages } from './anthropic-messages.js';
import { findGeminiRoute, GEMINI_PREFIX } from './gemini-routes.js';
import { listModels, retrieveModel } from './models.js';
import { chatCompletions } from './openai-chat.js';
import { completions } from './openai-completions.js';
import { embeddings } from './openai-embeddings.js';
import { responses } from './openai-responses.js';
import type { Flavour, Route, Vendor } from './types.js';

export type { Route } from './types.js';

const openai = (): Vendor => 'openai';
const anthropic = (): Vendor => 'anthropic';
/** `GET /v1/models` exists at both vendors; Anthropic clients always send `anthropic-version`. */
const byVersionHeader = (headers: IncomingHttpHeaders): Vendor =>
  headers['anthropic-version'] ? 'anthropic' : 'openai';

const ROUTES: ReadonlyMap<string, Route> = new Map([
  ['POST /v1/chat/completions', { vendor: openai, handle: chatCompletions, hasBody: true }],
  ['POST /v1/completions', { vendor: openai, handle: completions, hasBody: true }],
  ['POST /v1/responses', { vendor: openai, handle: responses, hasBody: true }],
  ['POST /v1/embeddings', { vendor: openai, handle: embeddings, hasBody: true }],
  ['GET /v1/models', { vendor: byVersionHeader, handle: listModels, hasBody: false }],
  ['POST /v1/messages', { vendor: anthropic, handle: messages, hasBody: true }],
  ['POST /v1/messages/count_tokens', { vendor: anthropic, handle: countTokens, hasBody: true }],
]);

const MODEL_PREFIX = '/v1/models/';

const COMPAT_PREFIX = '/compat';
/** What the Perplexity and OpenAI-compatible flavours offer (no Responses API, no Messages). */
const PERPLEXITY_PATHS = new Set(['/chat/completions', '/models']);
const COMPAT_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/models']);

/** The flavour of a path and the path as the OpenAI routes know it; null when the flavour lacks it. */
export function flavourOf(path: string): { flavour: Flavour; path: string } | null {
  // Google's own API: flavours only concern OpenAI-style paths (its handlers ignore the flavour).
  if (path.startsWith(GEMINI_PREFIX)) return { flavour: 'openai', path };
  if (path.startsWith(`${COMPAT_PREFIX}/`)) {
    const rest = path.slice(COMPAT_PREFIX.length);
    return COMPAT_PATHS.has(rest) ? { flavour: 'compat', path: rest } : null;
  }
  if (!path.startsWith('/v1/'))
    return PERPLEXITY_PATHS.has(path) ? { flavour: 'perplexity', path: `/v1${path}` } : null;
  return { flavour: 'openai', path };
}

export function findRoute(method: string, path: string): Route | undefined {
  if (path.startsWith(GEMINI_PREFIX)) return findGeminiRoute(method, path);
  const route = ROUTES.get(`${method} ${path}`);
  if (route || method !== 'GET' || !path.startsWith(MODEL_PREFIX)) return route;
  const id = decodeURIComponent(path.slice(MODEL_PREFIX.length));
  return { vendor: openai, handle: (input) => retrieveModel(id, input), hasBody: false };
}

/** The vendor whose error shape an unknown path gets. */
export function vendorOfPath(path: string): Vendor {
  if (path.startsWith(GEMINI_PREFIX)) return 'gemini';
  return path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
}
