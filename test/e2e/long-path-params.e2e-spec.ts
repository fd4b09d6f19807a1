import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { createEdgeApp } from '../../apps/edge/src/edge.app.js';
import { MODEL_ROUTES } from '../../apps/edge/src/http/model-routes.js';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { clientFormatOf } from '#libs/protocol';
import { MAX_PATH_PARAM_LENGTH } from '#libs/runtime';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { testConfigWithAnthropic } from '../support/gateway.js';
import { seedRawKey } from '../support/keys.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/redis.js';
import { type AppLogs, captureAppLogs } from './telemetry-logs.js';

/**
 * Every route of the edge and the console that takes a path parameter, walked from what Nest
 * registered, with parameters of 101, 1,000 and 10,000 characters, signed in and not: never a
 * 5xx, always the client's error shape with a request id, never an error-level log. Fastify's
 * router refuses a parameter over its `maxParamLength` with an error of status 414, which both
 * filters turned into a 500 `internal_error` logged with a stack (issue 19, defect 3).
 */
const ADMIN_TOKEN = 'long-path-params-admin-token-0123456789';
const LENGTHS = [101, 1_000, 10_000] as const;

interface Route {
  readonly method: string;
  readonly path: string;
}

/** The edge's routes that hold a `:param`: Nest's, and the model routes it serves on Fastify directly. */
function edgeParamRoutes(app: NestFastifyApplication): Route[] {
  const modelRoutes = MODEL_ROUTES.map((r) => ({ method: r.method, path: r.url }));
  return [...paramRoutes(app), ...modelRoutes.filter((r) => r.path.includes('/:'))];
}

/** The routes Nest registered on `app` that hold a `:param`, read from the controllers' metadata. */
function paramRoutes(app: NestFastifyApplication): Route[] {
  const routes: Route[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
        for (const prefix of prefixes)
          for (const path of paths) {
            const full = `/${[prefix, path]
              .map((p) => p.replace(/^\/|\/$/g, ''))
              .filter(Boolean)
              .join('/')}`;
            if (full.includes('/:')) routes.push({ method: RequestMethod[method], path: full });
          }
      }
    }
  }
  return routes;
}

/** The route's path with one parameter `length` characters long and the others one: a path per parameter. */
function withLongParam(path: string, length: number): string[] {
  const count = path.match(/:\w+/g)?.length ?? 0;
  return Array.from({ length: count }, (_, long) => {
    let i = 0;
    return path.replace(/:\w+/g, () => 'a'.repeat(i++ === long ? length : 1));
  });
}

let tdb: TestDatabase;
let edge: NestFastifyApplication;
let consoleApp: NestFastifyApplication;
let edgeUrl: string;
let consoleUrl: string;
let apiKey: string;
let logs: AppLogs;
const prefix = uniqueRedisPrefix('long-params');

async function listen(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

beforeAll(async () => {
  tdb = await createTestDatabase('long_path_params');
  const env = readEnv({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATABASE_URL: tdb.url,
    CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  const config = parseConfig(testConfigWithAnthropic('http://127.0.0.1:1'));
  edge = await createEdgeApp(env, config);
  edgeUrl = await listen(edge);
  consoleApp = await createConsoleApp(env, config);
  consoleUrl = await listen(consoleApp);
  apiKey = (await seedRawKey(tdb.db)).raw;
  logs = captureAppLogs();
}, 60_000);

afterAll(async () => {
  await edge?.close();
  await consoleApp?.close();
  await tdb?.drop();
  await dropRedisPrefix(prefix);
});

interface Answer {
  readonly status: number;
  readonly requestId: string | null;
  readonly body: unknown;
}

async function send(
  baseUrl: string,
  { method, path }: Route,
  headers: Record<string, string>,
): Promise<Answer> {
  const hasBody = method === 'POST' || method === 'PATCH' || method === 'PUT';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: hasBody ? { ...headers, 'content-type': 'application/json' } : headers,
    body: hasBody ? '{}' : undefined,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text, which fails the shape check
  }
  return { status: res.status, requestId: res.headers.get('x-request-id'), body };
}

/** The edge's error shapes: SPEC's A and B, Google's under /v1beta. */
function edgeShape(path: string, headers: Record<string, string>): unknown {
  switch (clientFormatOf(path, headers)) {
    case 'anthropic':
      return { type: 'error', error: { type: expect.any(String), message: expect.any(String) } };
    case 'google':
      return { error: { code: expect.any(Number), message: expect.any(String), status: expect.any(String) } };
    case 'openai':
      return {
        error: {
          message: expect.any(String),
          type: expect.any(String),
          // null here, or the field at fault
          param: answerParam,
          code: expect.any(String),
        },
      };
  }
}

/** Shape A's `param`: null, or the name of a field. */
const answerParam = {
  asymmetricMatch: (value: unknown) => value === null || typeof value === 'string',
  toString: () => 'null or a string',
} as unknown as string;

const consoleShape = { error: { code: expect.any(String), message: expect.any(String) } };

/**
 * What is wrong with an answer to a parameter of `length` characters: a 5xx, a 414 missing past
 * the router's bound, no request id, another shape, an error-level log line. Empty when right.
 */
function problemsOf(answer: Answer, length: number, shape: unknown): string[] {
  const problems: string[] = [];
  if (answer.status < 400 || answer.status >= 500) problems.push(`status ${answer.status}`);
  // Past the bound no handler runs: refused as URI too long, or a route of another shape answers
  // (the console's GET catch-all: 404 for any unknown /api/ path).
  if (length > MAX_PATH_PARAM_LENGTH && answer.status !== 414 && answer.status !== 404)
    problems.push(`status ${answer.status}, neither 414 nor 404`);
  if (!/^req_[0-9a-f]{32}$/.test(answer.requestId ?? '')) problems.push(`request id ${answer.requestId}`);
  if (!expect.objectContaining({ body: shape }).asymmetricMatch({ body: answer.body }))
    problems.push(`body ${JSON.stringify(answer.body).slice(0, 300)}`);
  if (logs.lines.some((l) => l.request_id === answer.requestId && l.level === 'error'))
    problems.push('logged at error level');
  return problems;
}

/** Each route with each length, `headers` on every request; the problems found, by case. */
async function walk(
  baseUrl: string,
  routes: readonly Route[],
  headers: Record<string, string>,
  shapeOf: (path: string) => unknown,
): Promise<string[]> {
  const found: string[] = [];
  for (const route of routes)
    for (const length of LENGTHS)
      for (const [param, path] of withLongParam(route.path, length).entries()) {
        const answer = await send(baseUrl, { method: route.method, path }, headers);
        for (const problem of problemsOf(answer, length, shapeOf(path)))
          found.push(`${route.method} ${route.path} (parameter ${param + 1}: ${length}): ${problem}`);
      }
  return found;
}

describe('the edge', () => {
  const clients: Array<[string, Record<string, string>]> = [
    ['no key', {}],
    ['an OpenAI SDK', { authorization: 'Bearer <key>' }],
    ['an Anthropic SDK', { 'x-api-key': '<key>', 'anthropic-version': '2023-06-01' }],
    ['a Google SDK', { 'x-goog-api-key': '<key>' }],
  ];

  it('walks a route with a parameter on every client path', () => {
    expect(
      edgeParamRoutes(edge)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(['GET /v1/models/:id', 'GET /v1beta/models/:id', 'POST /v1beta/models/:modelMethod']);
  });

  it.each(clients)('answers every route in the client shape, from %s', async (_, template) => {
    const headers = Object.fromEntries(
      Object.entries(template).map(([name, value]) => [name, value.replace('<key>', apiKey)]),
    );
    const routes = edgeParamRoutes(edge);
    expect(await walk(edgeUrl, routes, headers, (path) => edgeShape(path, headers))).toEqual([]);
  });

  it('an unknown model id of 101 characters is 404 model_not_found, as a short one', async () => {
    const answer = await send(
      edgeUrl,
      { method: 'GET', path: `/v1/models/${'a'.repeat(101)}` },
      { authorization: `Bearer ${apiKey}` },
    );
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ error: { code: 'model_not_found' } });
  });

  it('past the bound: 414 uri_too_long in shape A, B and Google', async () => {
    const long = 'a'.repeat(MAX_PATH_PARAM_LENGTH + 1);
    const a = await send(edgeUrl, { method: 'GET', path: `/v1/models/${long}` }, {});
    expect(a.body).toMatchObject({ error: { code: 'uri_too_long', type: 'invalid_request_error' } });
    const b = await send(edgeUrl, { method: 'GET', path: `/v1/models/${long}` }, { 'x-api-key': 'k' });
    expect(b.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const g = await send(edgeUrl, { method: 'POST', path: `/v1beta/models/${long}:generateContent` }, {});
    expect(g.body).toMatchObject({ error: { code: 414, status: 'INVALID_ARGUMENT' } });
  });
});

describe('the console', () => {
  it('walks its POST, DELETE, PATCH and GET routes with parameters', () => {
    const methods = new Set(paramRoutes(consoleApp).map((r) => r.method));
    expect([...methods].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST']);
  });

  it.each([
    ['signed out', {}],
    ['the admin token', { authorization: `Bearer ${ADMIN_TOKEN}` }],
  ])('answers every route in the console shape, %s', async (_, headers: Record<string, string>) => {
    expect(await walk(consoleUrl, paramRoutes(consoleApp), headers, () => consoleShape)).toEqual([]);
  });

  it('past the bound: 414 uri_too_long', async () => {
    const long = 'a'.repeat(MAX_PATH_PARAM_LENGTH + 1);
    const answer = await send(
      consoleUrl,
      { method: 'PATCH', path: `/api/admin/users/${long}` },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 414,
      body: { error: { code: 'uri_too_long', message: expect.any(String) } },
    });
  });
});
