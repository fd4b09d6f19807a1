import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAnthropicVersion, checkApiKey } from './auth.js';
import { azureRequest } from './azure.js';
import { attachRealtime } from './openai-realtime.js';
import { isVertexPath, vertexRequest } from './vertex.js';
import {
  applyBehaviour,
  DEFAULT_BEHAVIOUR,
  type MockBehaviour,
  type MockBehaviourPatch,
} from './behaviour.js';
import { controlReply, type MockState } from './control.js';
import { failureReply, hasRetryAfter, invalidRequest, openAIError } from './errors.js';
import { geminiError, geminiInvalidJson } from './gemini-errors.js';
import { mockId } from './ids.js';
import { RequestLog } from './request-log.js';
import { findRoute, flavourOf, vendorOfPath } from './routes.js';
import { dataFrame, eventFrame, writeSse } from './sse.js';
import type { JsonObject, JsonReply, MockProvider, Vendor } from './types.js';

export type MockProviderOptions = MockBehaviourPatch & { port?: number; host?: string };

const CONTROL_PREFIX = '/__mock/';
const NOT_JSON = Symbol('not json');

/** Starts the mock OpenAI + Anthropic + Gemini upstream. `port: 0` (the default) picks a free port. */
export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const { port = 0, host = '127.0.0.1', ...patch } = options;
  const initial = applyBehaviour({ ...DEFAULT_BEHAVIOUR }, patch);
  const state: MockState = {
    behaviour: initial,
    log: new RequestLog(initial.requestLogSize),
    setBehaviour(p: unknown) {
      this.behaviour = applyBehaviour(this.behaviour, p);
      this.log.setLimit(this.behaviour.requestLogSize);
    },
    reset() {
      this.behaviour = initial;
      this.log.setLimit(initial.requestLogSize);
      this.log.clear();
    },
  };
  const server = createServer({ noDelay: true }, (req, res) => onRequest(state, req, res));
  // Realtime sessions (WebSocket upgrades): closed with the server.
  const closeRealtime = attachRealtime(server, state);
  // Longer than any client pool's idle timeout, so a reused socket is never closed under a request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    get behaviour() {
      return state.behaviour;
    },
    get requests() {
      return state.log.list();
    },
    get stats() {
      return state.log.stats();
    },
    setBehaviour: (p: MockBehaviourPatch) => state.setBehaviour(p),
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
        closeRealtime();
      }),
  };
}

function onRequest(state: MockState, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method ?? 'GET';
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const body = raw.length === 0 ? undefined : parseJson(raw.toString('utf8'));
    if (path.startsWith(CONTROL_PREFIX)) {
      sendJson(res, controlReply(state, method, path, body === NOT_JSON ? undefined : body), {}, 0);
      return;
    }
    const b = state.behaviour;
    state.log.record({
      method,
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      headers: req.headers,
      body: body === NOT_JSON ? raw.toString('utf8') : body,
      receivedAt: Date.now(),
    });
    if (b.hang) return; // accepted, never answered; close() destroys the socket
    answer(
      b,
      req,
      res,
      { method, path, query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) },
      body,
    ).catch((err: unknown) =>
      sendJson(res, { kind: 'json', status: 500, body: { error: String(err) } }, {}, 0),
    );
  });
}

interface Target {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
}

async function answer(
  b: MockBehaviour,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  body: unknown,
): Promise<void> {
  const { method, path, query } = target;
  const headers = req.headers;
  // A cloud's URLs, onto the vendor routes (the cloud's own auth, versions and deployments first):
  // Azure OpenAI's under /openai/, Vertex AI's under /v1/projects/.
  const cloud = path.startsWith('/openai/')
    ? await azureRequest(b.azure, method, path, query, headers, body)
    : isVertexPath(path)
      ? await vertexRequest(b.vertex, b.geminiModels, method, path, headers, body)
      : null;
  if (cloud !== null && cloud.kind === 'json') {
    const cloudHeaders: Record<string, string> = isVertexPath(path) ? {} : { 'apim-request-id': mockId('') };
    return sendJson(res, cloud, cloudHeaders, b.latencyMs);
  }
  const flavoured = cloud !== null ? { flavour: 'openai' as const, path: cloud.path } : flavourOf(path);
  const route =
    cloud?.kind === 'vertex' && cloud.route !== undefined
      ? cloud.route
      : flavoured
        ? findRoute(method, flavoured.path)
        : undefined;
  const vendor: Vendor = route ? route.vendor(headers) : vendorOfPath(path);
  // Vertex's front end answers throttling and outages in Google's shape, whichever the publisher.
  const failVendor: Vendor = cloud?.kind === 'vertex' ? 'gemini' : vendor;
  const requestId = mockId('req_');
  // Google sends no request id header (its answers carry `responseId`).
  const replyHeaders: Record<string, string> =
    vendor === 'gemini'
      ? {}
      : vendor === 'openai'
        ? { 'x-request-id': requestId }
        : { 'request-id': requestId };
  const latency = numberHeader(headers['x-mock-latency-ms']) ?? b.latencyMs;
  const fail = (reply: JsonReply): void =>
    sendJson(res, withRequestId(vendor, reply, requestId), replyHeaders, latency);

  if (!route) return fail(notFound(vendor, method, path));
  if (b.requireApiKey !== null && cloud === null) {
    const denied = checkApiKey(vendor, headers, query, b.requireApiKey);
    if (denied) return fail(denied);
  }
  if (vendor === 'anthropic' && route.hasBody && cloud === null) {
    const noVersion = checkAnthropicVersion(headers);
    if (noVersion) return fail(noVersion);
  }
  const forced = numberHeader(headers['x-mock-fail']);
  const failStatus =
    forced !== undefined && forced >= 400 && forced <= 599
      ? forced
      : b.failureRate > 0 &&
          (b.failurePath === null || b.failurePath === path) &&
          Math.random() < b.failureRate
        ? b.failStatus
        : undefined;
  if (failStatus !== undefined) {
    if (hasRetryAfter(failVendor, failStatus)) replyHeaders['retry-after'] = String(b.retryAfterSeconds);
    const injected = failureReply(failVendor, failStatus, b.retryAfterSeconds);
    return sendJson(res, withRequestId(failVendor, injected, requestId), replyHeaders, latency);
  }
  if (
    route.hasBody &&
    (body === NOT_JSON || typeof body !== 'object' || body === null || Array.isArray(body))
  ) {
    return fail(invalidJson(vendor, body !== NOT_JSON));
  }
  const handled = route.handle({
    body: ((cloud === null ? body : cloud.body) ?? {}) as JsonObject,
    behaviour: b,
    headers,
    query,
    flavour: flavoured!.flavour,
  });
  const reply = cloud === null ? handled : cloud.decorate(handled);
  if (reply.kind === 'json') {
    if (reply.status >= 400) return fail(reply);
    if (b.omitUsage) delete (reply.body as { usage?: unknown }).usage;
    if (b.resetMidStream) return sendHalfAndReset(res, reply, replyHeaders, latency);
    return sendJson(res, reply, replyHeaders, latency);
  }
  let writes = reply.writes;
  if (b.midStreamError) writes = [...writes.slice(0, 2), reply.errorFrame ?? streamErrorFrame(vendor)];
  let resetAfter: number | null = null;
  if (b.resetMidStream) {
    // Cut after the first chunks; a one-write stream is cut inside its only write.
    resetAfter = writes.length >= 3 ? 2 : 1;
    if (writes.length === 1) writes = [(writes[0] as string).slice(0, (writes[0] as string).length >> 1)];
  }
  const streamHeaders = reply.contentType
    ? { ...replyHeaders, 'content-type': reply.contentType }
    : replyHeaders;
  writeSse(res, streamHeaders, writes, {
    ttftMs: numberHeader(headers['x-mock-ttft-ms']) ?? b.ttftMs,
    intervalMs: b.chunkIntervalMs,
    resetAfter,
  });
}

/** How each vendor reports a failure after the stream began (then closes it). */
function streamErrorFrame(vendor: Vendor): string {
  return vendor === 'anthropic'
    ? eventFrame('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
    : dataFrame({
        error: {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      });
}

function sendJson(
  res: ServerResponse,
  reply: JsonReply,
  headers: Record<string, string>,
  delayMs: number,
): void {
  const payload = JSON.stringify(reply.body);
  const send = (): void => {
    if (res.destroyed) return;
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...headers,
    });
    res.end(payload);
  };
  delay(res, delayMs, send);
}

/** A truncated body: the client sees a connection reset before `content-length` bytes arrive. */
function sendHalfAndReset(
  res: ServerResponse,
  reply: JsonReply,
  headers: Record<string, string>,
  delayMs: number,
): void {
  const payload = Buffer.from(JSON.stringify(reply.body));
  delay(res, delayMs, () => {
    if (res.destroyed) return;
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': payload.length,
      ...headers,
    });
    res.write(payload.subarray(0, payload.length >> 1), () => res.destroy());
  });
}

function delay(res: ServerResponse, ms: number, run: () => void): void {
  if (ms <= 0) return run();
  const timer = setTimeout(run, ms);
  res.on('close', () => clearTimeout(timer));
}

function withRequestId(vendor: Vendor, reply: JsonReply, requestId: string): JsonReply {
  return vendor === 'anthropic'
    ? { ...reply, body: { ...(reply.body as object), request_id: requestId } }
    : reply;
}

/** Google answers an unknown path under its API with its NOT_FOUND (the others their own 404s). */
function notFound(vendor: Vendor, method: string, path: string): JsonReply {
  return vendor === 'gemini'
    ? geminiError(404, 'Requested entity was not found.')
    : openAIError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error');
}

/** `parsed`: the body was JSON, but not an object. */
function invalidJson(vendor: Vendor, parsed: boolean): JsonReply {
  if (vendor === 'gemini') return geminiInvalidJson(parsed);
  return vendor === 'openai'
    ? invalidRequest(
        vendor,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      )
    : invalidRequest(
        vendor,
        'There was an error parsing the body of your request. Please make sure the request body is valid JSON.',
      );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function numberHeader(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
