import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BEHAVIOUR, type MockBehaviour } from '../mock-provider/behaviour.js';
import { accessDenied, actionOf, type BedrockAction, modelResource } from './access.js';
import { authenticate, type MockIdentities } from './authenticate.js';
import { type ControlPlaneRequest, startMockControlPlane } from './control-plane.js';
import { awsError, type AwsReply, throttled, validation } from './errors.js';
import { converseBody, converseFrames, type ConverseOptions } from './converse.js';
import { exceptionFrame } from './frames.js';
import { invokeEmbedding, isMockEmbeddingModel } from './embed.js';
import { invokeAnthropic } from './invoke.js';
import { type MockAwsCredential } from './sigv4.js';
import { validateConverse } from './validate-converse.js';

export interface MockBedrockOptions {
  readonly port?: number;
  /** The region this endpoint is (`bedrock-runtime.{region}.amazonaws.com`); signatures must be scoped to it. */
  readonly region?: string;
  /** The IAM key pairs it knows. */
  readonly credentials?: readonly MockAwsCredential[];
  /** The Bedrock API keys it takes as `Authorization: Bearer`. */
  readonly apiKeys?: readonly string[];
  readonly chunkCount?: number;
  readonly reply?: string | null;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  /** The service's clock, for the 5-minute window of X-Amz-Date. */
  readonly now?: () => Date;
  /** IAM actions the identity's policies do not allow (AccessDeniedException), as after `deny`. */
  readonly denied?: readonly BedrockAction[];
}

export interface MockBedrockRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

export interface MockBedrock {
  readonly url: string;
  readonly region: string;
  readonly requests: readonly MockBedrockRequest[];
  /**
   * The region's control plane (`bedrock.{region}.amazonaws.com`), the same account's: it serves
   * ListFoundationModels (`GET /foundation-models`), the router's probe, and nothing else.
   */
  readonly controlUrl: string;
  readonly controlRequests: readonly ControlPlaneRequest[];
  /** From now on the identity may do everything but these actions: they answer AccessDeniedException. */
  deny(actions: readonly BedrockAction[]): void;
  /** The next `count` model calls answer ThrottlingException (429). */
  throttleNext(count: number): void;
  /** The next streams send `frames` events, then this exception frame. */
  failStreamsAfter(frames: number, exceptionType: string, message: string): void;
  reset(): void;
  close(): Promise<void>;
}

/** The fixed test identity of the mock: an access key ID and secret in AWS's documented example form. */
export const MOCK_AWS_CREDENTIAL: MockAwsCredential = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
export const MOCK_BEDROCK_API_KEY = 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=';

const MODEL_PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/**
 * A mock Bedrock Runtime endpoint that authenticates as Bedrock does (a SigV4 signature
 * recomputed and checked, or a Bedrock API key as a bearer token), validates Converse, Anthropic
 * InvokeModel and text embedding (Titan V2, Cohere v3) bodies, and streams real event-stream
 * frames. Errors are AWS's: a JSON `{"message"}` with `x-amzn-ErrorType`.
 */
export async function startMockBedrock(options: MockBedrockOptions = {}): Promise<MockBedrock> {
  const region = options.region ?? 'us-east-1';
  const known = options.credentials ?? [MOCK_AWS_CREDENTIAL];
  const apiKeys = new Set(options.apiKeys ?? [MOCK_BEDROCK_API_KEY]);
  const ids: MockIdentities = { region, known, apiKeys, now: options.now };
  let denied: ReadonlySet<BedrockAction> = new Set(options.denied ?? []);
  const control = await startMockControlPlane(ids, () => denied);
  const converse: ConverseOptions = {
    chunkCount: options.chunkCount ?? DEFAULT_BEHAVIOUR.chunkCount,
    reply: options.reply ?? null,
    cacheReadTokens: options.cacheReadTokens ?? 0,
    cacheWriteTokens: options.cacheWriteTokens ?? 0,
  };
  const behaviour: MockBehaviour = {
    ...DEFAULT_BEHAVIOUR,
    chunkCount: converse.chunkCount,
    reply: converse.reply,
    cachedTokens: converse.cacheReadTokens,
    cacheWrite5mTokens: converse.cacheWriteTokens,
  };
  const requests: MockBedrockRequest[] = [];
  let throttle = 0;
  let streamFailure: { frames: number; type: string; message: string } | null = null;

  const handle = async (req: IncomingMessage, raw: Buffer): Promise<AwsReply | Buffer[]> => {
    const url = new URL(req.url ?? '/', 'http://mock');
    let body: unknown;
    try {
      body = raw.length === 0 ? undefined : (JSON.parse(raw.toString('utf8')) as unknown);
    } catch {
      body = raw.toString('utf8');
    }
    requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body });
    const refused = await authenticate(ids, req, url, raw);
    if (refused) return refused;
    const m = MODEL_PATH.exec(url.pathname);
    // Bedrock Runtime's answer to what is none of its operations (a control-plane path included).
    if (req.method !== 'POST' || m === null) return validation('Unknown operation');
    const action = actionOf(m[2]!);
    if (denied.has(action)) return accessDenied(action, modelResource(decodeURIComponent(m[1]!), region));
    if (throttle > 0) {
      throttle--;
      return throttled();
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return awsError(
        400,
        'ValidationException',
        'Malformed input request, please reformat your input and try again.',
      );
    const model = decodeURIComponent(m[1]!);
    const operation = m[2]!;
    const json = body as Record<string, unknown>;
    if (operation.startsWith('converse')) {
      if (isMockEmbeddingModel(model))
        return awsError(
          400,
          'ValidationException',
          "This action doesn't support the model that you provided. Try again with a supported text or chat model.",
        );
      const invalid = validateConverse(json);
      if (invalid) return invalid;
      if (operation === 'converse') return jsonReply(converseBody(json, model, converse));
      return withFailure(converseFrames(json, model, converse));
    }
    if (isMockEmbeddingModel(model))
      return invokeEmbedding(json, model, operation === 'invoke-with-response-stream');
    if (!/anthropic\./.test(model))
      return awsError(400, 'ValidationException', 'The provided model identifier is invalid.');
    const answer = invokeAnthropic(json, model, operation === 'invoke-with-response-stream', behaviour);
    if (answer.kind === 'error') return answer.reply;
    return answer.kind === 'json' ? jsonReply(answer.body) : withFailure(answer.frames);
  };

  const withFailure = (frames: Buffer[]): Buffer[] => {
    if (streamFailure === null) return frames;
    return [
      ...frames.slice(0, streamFailure.frames),
      exceptionFrame(streamFailure.type, streamFailure.message),
    ];
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, Buffer.concat(chunks)).then(
        (out) => send(res, out),
        (err: unknown) => send(res, awsError(500, 'InternalServerException', String(err))),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    region,
    requests,
    controlUrl: control.url,
    controlRequests: control.requests,
    deny: (actions) => (denied = new Set(actions)),
    throttleNext: (count) => (throttle = count),
    failStreamsAfter: (frames, type, message) => (streamFailure = { frames, type, message }),
    reset: () => {
      requests.length = 0;
      throttle = 0;
      denied = new Set(options.denied ?? []);
      control.reset();
      streamFailure = null;
    },
    close: async () => {
      await control.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function jsonReply(body: unknown): AwsReply {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() },
    body: Buffer.from(JSON.stringify(body)),
  };
}

function send(res: ServerResponse, out: AwsReply | Buffer[]): void {
  if (!Array.isArray(out)) {
    res.writeHead(out.status, out.headers).end(out.body);
    return;
  }
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': randomUUID(),
    'x-amzn-bedrock-content-type': 'application/json',
  });
  // One write per frame, as the service flushes events.
  for (const frame of out) res.write(frame);
  res.end();
}
