import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatRequest } from '../src/chat.js';
import { anthropicRequestOf } from '../anthropic/index.js';
import { geminiProvider } from '../gemini/index.js';
import { vertexAdapterOf, vertexAnthropicAdapter, vertexGeminiAdapter } from './adapter.js';
import { publisherOf, vertexBaseUrl, vertexEndpoint, vertexPaths } from './endpoint.js';
import {
  vertexClaudeCountTokensRoute,
  vertexCountTokensRoute,
  vertexGenerateContentRoute,
  vertexMessagesRoute,
} from './native.js';
import { frontEndRequestError } from './mapping.js';
import { vertexAnthropicProvider, vertexGeminiProvider } from './provider.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const CLAUDE = 'claude-sonnet-4@20250514';
const GEMINI = 'gemini-2.5-flash';
const hub = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  messages: [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: 'Hi' },
  ],
  ...extra,
});

describe('Vertex endpoints', () => {
  it("places a location's endpoint as Google's SDK does: regional, global, multi-regional", () => {
    expect(vertexBaseUrl('us-east5')).toBe('https://us-east5-aiplatform.googleapis.com');
    expect(vertexBaseUrl('global')).toBe('https://aiplatform.googleapis.com');
    expect(vertexBaseUrl('eu')).toBe('https://aiplatform.eu.rep.googleapis.com');
  });

  it('puts every path under the project and location', () => {
    const endpoint = vertexEndpoint({ project: 'my-proj', location: 'us-east5' } as never);
    expect(endpoint.path(vertexPaths.rawPredict(CLAUDE, true), CLAUDE)).toBe(
      '/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict',
    );
    expect(endpoint.path(vertexPaths.stream(GEMINI), GEMINI)).toBe(
      '/v1/projects/my-proj/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    // The router's probe: the project's model registry listing (cheap, unbilled, needs the same role).
    expect(endpoint.path('/models', '')).toBe('/v1/projects/my-proj/locations/us-east5/models');
    expect(endpoint.model(CLAUDE)).toBe(CLAUDE);
  });

  it('escapes what is not safe in a path segment, keeps the version suffix', () => {
    expect(vertexPaths.generate('a/b?c')).toBe('/publishers/google/models/a%2Fb%3Fc:generateContent');
    expect(vertexPaths.rawPredict('claude-3-5-haiku@20241022', false)).toBe(
      '/publishers/anthropic/models/claude-3-5-haiku@20241022:rawPredict',
    );
  });

  it('refuses to place a provider without project or location (the config names the field first)', () => {
    expect(() => vertexEndpoint({ location: 'global' } as never)).toThrow(/project and a location/);
    expect(() => vertexEndpoint({ project: 'p' } as never)).toThrow(/project and a location/);
  });

  it('sends claude-* models to Anthropic, every other to Google', () => {
    expect(publisherOf(CLAUDE)).toBe('anthropic');
    expect(publisherOf('claude-opus-4-1@20250805')).toBe('anthropic');
    expect(publisherOf(GEMINI)).toBe('google');
    expect(publisherOf('gemma-3-27b-it')).toBe('google');
    expect(vertexAdapterOf(CLAUDE)).toBe(vertexAnthropicAdapter);
    expect(vertexAdapterOf(GEMINI)).toBe(vertexGeminiAdapter);
  });
});

describe('Vertex native routes', () => {
  it('Claude: the model leaves the body, the Vertex version joins it, the stream flag picks the method', () => {
    const prepared = vertexMessagesRoute.prepare(fixture('claude-request.in.json'), CLAUDE);
    expect(prepared.body).toEqual(fixture('claude-request.out.json'));
    expect(JSON.stringify(prepared.body)).not.toContain('"model"');
    expect(vertexMessagesRoute.path(CLAUDE, false)).toBe(
      '/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
  });

  it('Claude token counting: the count-tokens model, the counted model in the body', () => {
    const prepared = vertexClaudeCountTokensRoute.prepare(
      { model: 'alias', messages: [{ role: 'user', content: 'Hi' }] },
      CLAUDE,
    );
    expect(prepared.body).toEqual({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Hi' }],
      anthropic_version: 'vertex-2023-10-16',
    });
    expect(vertexClaudeCountTokensRoute.path(CLAUDE, false)).toBe(
      '/publishers/anthropic/models/count-tokens:rawPredict',
    );
    expect(vertexClaudeCountTokensRoute.wire).toBeNull();
  });

  it("Gemini: a content without a role is made the user's, as AI Studio reads it", () => {
    const body = fixture('gemini-request.in.json');
    expect(vertexGenerateContentRoute.prepare(body, GEMINI).body).toEqual(fixture('gemini-request.out.json'));
    const out = fixture('gemini-request.out.json');
    // Nothing to change: the same object passes.
    expect(vertexGenerateContentRoute.prepare(out, GEMINI).body).toBe(out);
  });

  it("Gemini countTokens: AI Studio's generateContentRequest wrapper unwrapped to Vertex's top-level fields", () => {
    const prepared = vertexCountTokensRoute.prepare(fixture('gemini-count-tokens.in.json'), GEMINI);
    expect(prepared.body).toEqual(fixture('gemini-count-tokens.out.json'));
    expect(vertexCountTokensRoute.path(GEMINI, false)).toBe(
      '/publishers/google/models/gemini-2.5-flash:countTokens',
    );
    expect(vertexCountTokensRoute.usageOfBody({ totalTokens: 9 })).toBeNull();
  });

  it('charges Vertex usage as the direct vendors: cache reads and both cache writes', () => {
    expect(vertexMessagesRoute.usageOfBody(fixture('claude-message.in.json'))).toEqual(
      fixture('claude-message.out.json'),
    );
    expect(vertexGenerateContentRoute.usageOfBody(fixture('gemini-response.in.json'))).toEqual(
      fixture('gemini-response.out.json'),
    );
  });
});

describe('Vertex hub formats', () => {
  it("Gemini: AI Studio's translation, on Vertex's paths", () => {
    const up = vertexGeminiProvider.fromHub(hub(), GEMINI, new AdjustmentLog());
    expect(up.path).toBe('/publishers/google/models/gemini-2.5-flash:generateContent');
    expect(up.body).toEqual(geminiProvider.fromHub(hub(), GEMINI, new AdjustmentLog()).body);
    const stream = vertexGeminiProvider.fromHub(hub({ stream: true }), GEMINI, new AdjustmentLog());
    expect(stream.path).toBe('/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it("Claude: Anthropic's translation with the model in the path and the version in the body", () => {
    for (const stream of [false, true]) {
      const req = hub({ stream });
      const up = vertexAnthropicProvider.fromHub(req, CLAUDE, new AdjustmentLog());
      const { model: _model, ...direct } = anthropicRequestOf(req, CLAUDE, new AdjustmentLog()).body;
      expect(up.body).toEqual({ ...direct, anthropic_version: 'vertex-2023-10-16' });
      expect(up.path).toBe(
        `/publishers/anthropic/models/claude-sonnet-4@20250514:${stream ? 'streamRawPredict' : 'rawPredict'}`,
      );
      expect(up.headers['anthropic-version']).toBeUndefined();
    }
  });

  it("reads errors in Anthropic's shape and in Google's (Vertex's front end)", () => {
    const google = { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } };
    expect(vertexAnthropicProvider.errorMessage(google)).toBe('Quota exceeded');
    expect(vertexAnthropicProvider.errorMessage([google])).toBe('Quota exceeded');
    const anthropic = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    expect(vertexAnthropicProvider.errorMessage(anthropic)).toBe('Overloaded');
    expect(vertexGeminiProvider.errorMessage([google])).toBe('Quota exceeded');
  });
});

describe('Vertex headers', () => {
  it('no key of its own (the Google credential adds the bearer), JSON both ways', () => {
    expect(vertexGeminiAdapter.upstreamHeaders('ignored', { authorization: 'Bearer client' })).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it("Claude: the client's anthropic-beta passes, its anthropic-version does not (the body carries Vertex's)", () => {
    const headers = vertexAnthropicAdapter.upstreamHeaders(undefined, {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': ['prompt-caching-2024-07-31', 'context-1m-2025-08-07'],
      'x-api-key': 'client key',
    });
    expect(headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-beta': 'prompt-caching-2024-07-31,context-1m-2025-08-07',
    });
  });
});

describe("Vertex's front-end errors on Claude's routes", () => {
  const google = (code: number, status: string, message: string) =>
    Buffer.from(JSON.stringify({ error: { code, message, status } }));
  const missing =
    'Publisher Model `projects/p/locations/us-east5/publishers/anthropic/models/claude-x@1` was not found or your project does not have access to it.';

  it("renders Google's request errors in the client's shape", () => {
    const notFound = vertexAnthropicAdapter.clientError!(404, google(404, 'NOT_FOUND', missing))!;
    expect([notFound.code, notFound.status]).toEqual(['not_found', 404]);
    expect(notFound.message).toBe(`Vertex AI refused the request: ${missing}`);
    const listed = Buffer.from(`[${google(400, 'INVALID_ARGUMENT', 'bad').toString()}]`);
    expect(frontEndRequestError(400, listed)!.code).toBe('invalid_request');
  });

  it("leaves Claude's own errors and the provider failures (401, 403, 429, 5xx) alone", () => {
    const claude = Buffer.from('{"type":"error","error":{"type":"invalid_request_error","message":"x"}}');
    expect(frontEndRequestError(400, claude)).toBeNull();
    for (const [code, status] of [
      [401, 'UNAUTHENTICATED'],
      [403, 'PERMISSION_DENIED'],
      [429, 'RESOURCE_EXHAUSTED'],
      [503, 'UNAVAILABLE'],
    ] as const)
      expect(frontEndRequestError(code, google(code, status, 'no'))).toBeNull();
    expect(frontEndRequestError(400, Buffer.from('"status" but not JSON'))).toBeNull();
    expect(vertexGeminiAdapter.clientError).toBeUndefined();
  });
});
