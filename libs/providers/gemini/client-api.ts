import { GatewayError } from '#libs/protocol';
import { type ClientApi, type ClientRequestParts, type RequestTarget } from '../src/adapter.js';
import { type ClientFormat } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { geminiInputContent } from './client-capture.js';
import { invalid, isObject, read, unknownKeyIn } from './client-fields.js';
import { hubRequestOfGemini } from './client-request.js';
import { geminiResponseOfCompletion } from './client-response.js';
import { geminiStreamFromHub } from './client-stream.js';
import { contentsInvalid, generateContentInvalid } from './client-validate.js';
import { countedBody, countGeminiTokens, countTokensAnswer } from './count-tokens.js';

/** A client speaking Google's generateContent (the @google/genai SDK, Gemini CLI), served through the hub. */
export const geminiClient: ClientFormat = {
  name: 'generate_content',
  // Google's API has no request headers that tune it (the version is in the path).
  vendorHeaders: [],
  toHub: hubRequestOfGemini,
  fromHub: geminiResponseOfCompletion,
  streamFromHub: geminiStreamFromHub,
};

/** Google's SDKs send `x-goog-api-key`; REST examples put `?key=` in the URL; some proxies use a bearer token. */
const keySources: ClientApi['keySources'] = ['x-goog-api-key', 'key-query', 'authorization'];

/** The model and the method are in the path (`models/{model}:{action}`), never in the body. */
const pathTarget = (_body: JsonObject, parts: ClientRequestParts): RequestTarget => ({
  model: parts.params.model,
  stream: parts.params.action === 'streamGenerateContent',
});

function actionInvalid(parts: ClientRequestParts, served: readonly string[]): GatewayError | null {
  const action = parts.params.action;
  if (action !== undefined && served.includes(action)) return null;
  return new GatewayError(
    'not_found',
    `Method models.${String(action)} is not found; this route serves ${served.join(' and ')}.`,
    {
      param: 'action',
    },
  );
}

/**
 * Google's SDKs stream with `alt=sse`. Without it Google sends one JSON array, written element by
 * element; the gateway serves Server-Sent Events only, and says so rather than answering in a
 * framing the client did not ask for.
 */
function streamEncodingInvalid(parts: ClientRequestParts): GatewayError | null {
  if (parts.params.action !== 'streamGenerateContent' || parts.query.alt === 'sse') return null;
  return invalid(
    'alt',
    'streamGenerateContent is served with alt=sse only (Server-Sent Events, what the Google SDKs ask for); the JSON array stream is not served by this gateway.',
  );
}

/** `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`. */
export const generateContentApi: ClientApi = {
  name: 'generate_content',
  route: '/v1beta/models/{model}:generateContent',
  errors: 'google',
  keySources,
  streams: true,
  target: pathTarget,
  validate: (body, parts) =>
    actionInvalid(parts, ['generateContent', 'streamGenerateContent']) ??
    streamEncodingInvalid(parts) ??
    generateContentInvalid(body),
  hub: geminiClient,
  // Google's streams always end with usageMetadata.
  includeUsage: () => true,
  inputContent: geminiInputContent,
};

const COUNT_FIELDS: ReadonlySet<string> = new Set(['contents', 'generateContentRequest']);

/** Either `contents`, or a whole `generateContentRequest` (which wins when both are sent, as Google documents). */
export function countTokensInvalid(body: JsonObject): GatewayError | null {
  const unknown = unknownKeyIn(body, COUNT_FIELDS);
  if (unknown) return unknown;
  const inner = read(body, 'generateContentRequest');
  if (inner !== undefined && inner !== null) {
    if (!isObject(inner))
      return invalid(
        'generateContentRequest',
        "Invalid value at 'generate_content_request': expected an object.",
      );
    return generateContentInvalid(inner);
  }
  if (read(body, 'contents') === undefined)
    return invalid('contents', '* CountTokensRequest: contents or generateContentRequest is required.');
  return contentsInvalid(read(body, 'contents'));
}

/**
 * `POST /v1beta/models/{model}:countTokens`: upstream at providers that speak Gemini natively,
 * counted here with the model family's tokenizer for the others. Never translated.
 */
export const countContentTokensApi: ClientApi = {
  name: 'count_content_tokens',
  route: '/v1beta/models/{model}:countTokens',
  errors: 'google',
  keySources,
  streams: false,
  target: (_body, parts) => ({ model: parts.params.model, stream: false }),
  validate: (body, parts) => actionInvalid(parts, ['countTokens']) ?? countTokensInvalid(body),
  hub: null,
  includeUsage: () => true,
  inputContent: (body) => geminiInputContent(countedBody(body)),
  localCount: {
    count: (body, _target, family) => countGeminiTokens(body, family),
    answer: countTokensAnswer,
  },
};
