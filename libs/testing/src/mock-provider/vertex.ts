import type { IncomingHttpHeaders } from 'node:http';
import { verifyGoogleToken } from '../mock-google/tokens.js';
import { anthropicError } from './errors.js';
import { geminiError } from './gemini-errors.js';
import type { Check } from './params.js';
import type { EndpointReply, JsonObject, JsonReply, Route, Vendor } from './types.js';
import { validateMessagesRequest } from './validate-anthropic.js';
import { validateGeminiRequest } from './validate-gemini.js';
import { predictEmbeddings } from './vertex-predict.js';

/** What the mock's Vertex AI accepts. */
export interface VertexBehaviour {
  /** Public keys (SPKI PEM) of the Google identity whose access tokens it trusts (`startMockGoogle().signingKeys`). */
  googleKeys: string[];
  /** Projects the caller may use (any other: 403 IAM_PERMISSION_DENIED, as for a project without the role). */
  projects: string[];
  /** Locations served (`global` included). */
  locations: string[];
  /** Claude models on `publishers/anthropic` (Gemini models are the mock's `geminiModels`). */
  anthropicModels: string[];
  /** Google's text embedding models, served by `predict` (absent: `DEFAULT_EMBEDDING_MODELS`). */
  embeddingModels?: string[];
}

/** The text embedding models Vertex serves by `predict` in the mock's default. */
export const DEFAULT_EMBEDDING_MODELS: readonly string[] = Object.freeze([
  'text-embedding-005',
  'text-multilingual-embedding-002',
  'gemini-embedding-001',
]);

export const DEFAULT_VERTEX: Readonly<VertexBehaviour> = Object.freeze({
  googleKeys: [],
  projects: ['mock-project'],
  locations: ['global', 'us-east5', 'us-central1', 'europe-west1'],
  anthropicModels: ['claude-sonnet-4@20250514', 'claude-opus-4-1@20250805', 'claude-3-5-haiku@20241022'],
  embeddingModels: [...DEFAULT_EMBEDDING_MODELS],
});

/** The `anthropic_version` Claude on Vertex takes, in the body. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** A Vertex request mapped onto the mock's Gemini or Anthropic routes. */
export interface VertexTarget {
  readonly kind: 'vertex';
  /** The route's path as the mock knows it (`/v1beta/models/{m}:generateContent`, `/v1/messages`). */
  readonly path: string;
  readonly body: unknown;
  /** Whose formats the answer takes: the model's publisher's. */
  readonly vendor: Vendor;
  decorate(reply: EndpointReply): EndpointReply;
  /** A Vertex-only endpoint (the embedding models' `predict`), answered here instead of on `path`. */
  readonly route?: Route;
}

const METHOD_PREFIX = 'google.cloud.aiplatform.v1.PredictionService.';

/** Google's auth errors, with the ErrorInfo details its front end adds. */
function authError(status: 401 | 403, message: string, reason: string, method: string): JsonReply {
  return geminiError(status, message, [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason,
      domain: 'googleapis.com',
      metadata: { service: 'aiplatform.googleapis.com', method: `${METHOD_PREFIX}${method}` },
    },
  ]);
}

const NO_CREDENTIALS =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const BAD_CREDENTIALS =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

const PATH =
  /^\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)$/;
const MODELS_LIST = /^\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/models$/;

/** Vertex AI's resource paths, in its GA and beta versions (Google's SDK calls v1beta1). */
export const isVertexPath = (path: string): boolean =>
  path.startsWith('/v1/projects/') || path.startsWith('/v1beta1/projects/');

const GEMINI_METHODS: Readonly<Record<string, string>> = {
  generateContent: 'GenerateContent',
  streamGenerateContent: 'StreamGenerateContent',
  countTokens: 'CountTokens',
  predict: 'Predict',
};
const ANTHROPIC_METHODS: Readonly<Record<string, string>> = {
  rawPredict: 'RawPredict',
  streamRawPredict: 'StreamRawPredict',
};

const notFound = (path: string): JsonReply =>
  geminiError(404, `The requested URL ${path} was not found on this server.`);

/**
 * Vertex AI's front door, in Google's order: the URL (project, location, publisher, model,
 * method), authentication (a bearer access token checked for its issuer's signature, audience,
 * scope and expiry: expired -> 401 UNAUTHENTICATED), the project's permission, the location,
 * the publisher's model, then the publisher's own checks (Claude: `anthropic_version` in the
 * body, no `model` in it; Gemini: every content has a role). The request then runs on the
 * mock's Gemini or Anthropic routes.
 */
export async function vertexRequest(
  vx: VertexBehaviour,
  geminiModels: readonly string[],
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: unknown,
): Promise<VertexTarget | JsonReply> {
  const listing = MODELS_LIST.exec(path);
  const m = PATH.exec(path);
  if (listing === null && m === null) return notFound(path);
  const [project, location] = (listing ?? m)!.slice(1, 3).map(decode) as [string, string];
  const publisher = m === null ? null : decode(m[3]!);
  const verb = m?.[5] ?? 'ListModels';
  const rpc = publisher === 'anthropic' ? ANTHROPIC_METHODS[verb] : GEMINI_METHODS[verb];
  if (listing === null && (rpc === undefined || method !== 'POST')) return notFound(path);
  if (listing !== null && method !== 'GET') return notFound(path);
  const denied = await authenticate(vx, headers, rpc ?? 'ListModels');
  if (denied) return denied;
  if (!vx.projects.includes(project)) {
    return authError(
      403,
      `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}' (or it may not exist).`,
      'IAM_PERMISSION_DENIED',
      rpc ?? 'ListModels',
    );
  }
  if (!vx.locations.includes(location))
    return geminiError(400, `Location ${location} is not supported for this request.`);
  if (listing !== null) return { kind: 'json', status: 200, body: {} };
  const model = decode(m![4]!);
  const resource = `projects/${project}/locations/${location}/publishers/${publisher}/models/${model}`;
  const modelMissing = geminiError(
    404,
    `Publisher Model \`${resource}\` was not found or your project does not have access to it. Please ensure you are using a valid model version.`,
  );
  const object = isObject(body) ? body : null;
  if (publisher === 'google') {
    if (verb === 'predict') return predictTarget(vx, model, body, modelMissing);
    if (!geminiModels.includes(model)) return modelMissing;
    return geminiTarget(model, verb, object, body);
  }
  if (publisher !== 'anthropic') return modelMissing;
  if (model === 'count-tokens') return claudeCountTarget(vx, object, body);
  if (!vx.anthropicModels.includes(model)) return modelMissing;
  return claudeTarget(model, verb, object, body);
}

async function authenticate(
  vx: VertexBehaviour,
  headers: IncomingHttpHeaders,
  rpc: string,
): Promise<JsonReply | null> {
  const auth = headers.authorization;
  if (auth === undefined || !auth.startsWith('Bearer '))
    return authError(401, NO_CREDENTIALS, 'CREDENTIALS_MISSING', rpc);
  const verdict = await verifyGoogleToken(auth.slice(7), vx.googleKeys);
  if (verdict.ok) return null;
  if (verdict.why === 'scope')
    return authError(
      403,
      'Request had insufficient authentication scopes.',
      'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      rpc,
    );
  const reason = verdict.why === 'expired' ? 'ACCESS_TOKEN_EXPIRED' : 'ACCESS_TOKEN_TYPE_UNSUPPORTED';
  return authError(401, BAD_CREDENTIALS, reason, rpc);
}

function geminiTarget(
  model: string,
  verb: string,
  object: JsonObject | null,
  body: unknown,
): VertexTarget | JsonReply {
  if (object !== null && Array.isArray(object.contents)) {
    const roleless = (object.contents as unknown[]).some(
      (c) => !isObject(c) || (c.role !== 'user' && c.role !== 'model'),
    );
    if (roleless) return geminiError(400, 'Please use a valid role: user, model.');
  }
  const path = `/v1beta/models/${model}:${verb}`;
  if (verb !== 'countTokens' || object === null)
    return { kind: 'vertex', path, body, vendor: 'gemini', decorate: withCreateTime };
  // Vertex takes countTokens' fields at the top level; AI Studio's wrapper is an unknown field.
  for (const key of ['generateContentRequest', 'generate_content_request'])
    if (key in object)
      return geminiError(400, `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  const wrapped =
    object.systemInstruction !== undefined ||
    object.tools !== undefined ||
    object.generationConfig !== undefined
      ? { generateContentRequest: { ...object, model: `models/${model}` } }
      : object;
  return { kind: 'vertex', path, body: wrapped, vendor: 'gemini', decorate: (r) => r };
}

/** `predict` of a text embedding model (Gemini models have no `predict`: Vertex's 404 as for any). */
function predictTarget(
  vx: VertexBehaviour,
  model: string,
  body: unknown,
  missing: JsonReply,
): VertexTarget | JsonReply {
  if (!(vx.embeddingModels ?? DEFAULT_EMBEDDING_MODELS).includes(model)) return missing;
  return {
    kind: 'vertex',
    path: `/v1beta/models/${model}:predict`,
    body,
    vendor: 'gemini',
    decorate: (r) => r,
    route: { vendor: () => 'gemini', handle: predictEmbeddings(model), hasBody: true },
  };
}

function claudeVersionError(object: JsonObject | null): JsonReply | null {
  if (object === null) return null; // the routes answer a body that is not an object
  if (object.anthropic_version === undefined)
    return anthropicError(400, 'invalid_request_error', 'anthropic_version: Field required');
  if (object.anthropic_version !== VERTEX_ANTHROPIC_VERSION)
    return anthropicError(
      400,
      'invalid_request_error',
      `anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`,
    );
  return null;
}

function claudeTarget(
  model: string,
  verb: string,
  object: JsonObject | null,
  body: unknown,
): VertexTarget | JsonReply {
  const refused = claudeVersionError(object);
  if (refused) return refused;
  if (object === null)
    return { kind: 'vertex', path: '/v1/messages', body, vendor: 'anthropic', decorate: vertexIds };
  if (object.model !== undefined)
    return anthropicError(400, 'invalid_request_error', 'model: Extra inputs are not permitted');
  const streams = object.stream === true;
  if (streams !== (verb === 'streamRawPredict'))
    return anthropicError(
      400,
      'invalid_request_error',
      streams ? 'stream: use streamRawPredict to stream' : 'streamRawPredict needs stream: true',
    );
  const { anthropic_version: _v, ...rest } = object;
  return {
    kind: 'vertex',
    path: '/v1/messages',
    body: { ...rest, model },
    vendor: 'anthropic',
    decorate: vertexIds,
  };
}

/** The `count-tokens` model counts for the model the body names (one of the served Claude models). */
function claudeCountTarget(
  vx: VertexBehaviour,
  object: JsonObject | null,
  body: unknown,
): VertexTarget | JsonReply {
  const refused = claudeVersionError(object);
  if (refused) return refused;
  const rest = object === null ? body : (({ anthropic_version: _v, ...r }) => r)(object);
  if (object !== null && (typeof object.model !== 'string' || !vx.anthropicModels.includes(object.model)))
    return anthropicError(404, 'not_found_error', `model: ${String(object.model)}`);
  return {
    kind: 'vertex',
    path: '/v1/messages/count_tokens',
    body: rest,
    vendor: 'anthropic',
    decorate: (r) => r,
  };
}

/** Vertex's Gemini answers carry `createTime` beside `responseId`. */
function withCreateTime(reply: EndpointReply): EndpointReply {
  if (reply.kind !== 'json' || reply.status !== 200 || !isObject(reply.body)) return reply;
  return { ...reply, body: { ...reply.body, createTime: new Date().toISOString() } };
}

/** Claude's message ids on Vertex: `msg_vrtx_...`. */
function vertexIds(reply: EndpointReply): EndpointReply {
  if (reply.kind === 'json') {
    if (reply.status !== 200 || !isObject(reply.body) || typeof reply.body.id !== 'string') return reply;
    return { ...reply, body: { ...reply.body, id: reply.body.id.replace(/^msg_/, 'msg_vrtx_') } };
  }
  return { ...reply, writes: reply.writes.map((w) => w.replaceAll('"id":"msg_', '"id":"msg_vrtx_')) };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What the mock Vertex refuses of a body for a served model (the URL and the token aside): its
 * own checks (Claude: `anthropic_version`, no `model`, the stream flag; Gemini: roles), then the
 * publisher's validator; null when it would be answered.
 */
export function validateVertexRequest(
  publisher: 'google' | 'anthropic',
  model: string,
  body: JsonObject,
): Check {
  const stream = body.stream === true;
  if (publisher === 'anthropic') {
    const target = claudeTarget(model, stream ? 'streamRawPredict' : 'rawPredict', body, body);
    return target.kind === 'json' ? target : validateMessagesRequest(target.body as JsonObject);
  }
  const target = geminiTarget(model, 'generateContent', body, body);
  return target.kind === 'json' ? target : validateGeminiRequest(body, model);
}
