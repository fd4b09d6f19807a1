import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Dispatcher } from 'undici';
import { type Catalog } from '#libs/config';
import { asGatewayError, GatewayError } from '#libs/protocol';
import { openai, type JsonObject } from '#libs/providers';
import { costNanos } from '#libs/quota';
import { apiKeyFromHeaders } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { authorizeModel } from '../auth/model-access.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { RoutesService } from '../routing/routes.service.js';
import { CATALOG } from '../tokens.js';
import { UpstreamClient } from '../upstream/upstream.client.js';
import { isRetriableStatus, mapUpstreamFailure } from '../upstream/upstream-failure.js';
import { relayChatStream } from './chat-stream.js';

/** Bound on providers tried for one request (failover); the routing issue makes it configurable. */
const MAX_ATTEMPTS = 3;

interface Upstream {
  readonly response: Dispatcher.ResponseData;
  readonly clientWantsUsage: boolean;
  readonly abort: AbortController;
}

/** POST /v1/chat/completions to an OpenAI-format provider: passthrough, non-stream and stream. */
@Injectable()
export class ChatCompletionsService {
  constructor(
    private readonly keys: KeyResolver,
    private readonly routes: RoutesService,
    private readonly upstream: UpstreamClient,
    private readonly logs: LogShipper,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const record = new RequestRecord(req.id, '/v1/chat/completions');
    try {
      record.key = await this.keys.authenticate(apiKeyFromHeaders(req.headers, false));
      const body = requireChatBody(req.body);
      const model = authorizeModel(this.catalog, record.key, body.model);
      record.model = model.id;
      record.stream = body.stream === true;
      const up = await this.callUpstream(body, record);
      if (record.stream && up.response.statusCode === 200) return this.sendStream(up, reply, record);
      await this.sendBody(up, reply, record);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      this.finish(record, error.status, error.code);
    }
  }

  /** Tries candidates in route order; moves on for connect errors, 429 and 5xx. */
  private async callUpstream(body: JsonObject, record: RequestRecord): Promise<Upstream> {
    const candidates = this.routes.candidates(record.model ?? '');
    if (candidates.length === 0) {
      throw new GatewayError(
        'no_available_provider',
        `No provider is available for the model \`${record.model}\`.`,
      );
    }
    // Built only on failure: constructing an Error captures a stack, which is not free per request.
    let lastError: GatewayError | null = null;
    const tries = Math.min(candidates.length, MAX_ATTEMPTS);
    for (let i = 0; i < tries; i++) {
      const candidate = candidates[i]!;
      const provider = this.catalog.providers.get(candidate.providerId);
      if (!provider) continue;
      const prepared = openai.prepareChatRequest(body, candidate.upstreamModel);
      const abort = new AbortController();
      const t = record.elapsedMs();
      record.providerId = provider.id;
      record.upstreamModel = candidate.upstreamModel;
      let response: Dispatcher.ResponseData;
      try {
        response = await this.upstream.post({
          provider,
          path: openai.OPENAI_PATHS.chatCompletions,
          headers: openai.openAIHeaders(provider.apiKey),
          body: JSON.stringify(prepared.body),
          signal: abort.signal,
        });
      } catch (err) {
        const timeout = (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
        record.addAttempt(provider.id, 0, timeout ? 'timeout' : 'connect_error', t);
        lastError = timeout
          ? new GatewayError('upstream_timeout', 'The provider for this model did not answer in time.')
          : new GatewayError('upstream_error', 'The provider for this model could not be reached.');
        continue;
      }
      const status = response.statusCode;
      if (isRetriableStatus(status) && i < tries - 1) {
        record.addAttempt(provider.id, status, 'http_error', t);
        await response.body.dump();
        continue;
      }
      record.addAttempt(provider.id, status, status < 400 ? 'ok' : 'http_error', t);
      return { response, clientWantsUsage: prepared.clientWantsUsage, abort };
    }
    throw (
      lastError ??
      new GatewayError('no_available_provider', `No provider is available for the model \`${record.model}\`.`)
    );
  }

  private async sendBody(up: Upstream, reply: FastifyReply, record: RequestRecord): Promise<void> {
    const { statusCode, headers } = up.response;
    const buf = Buffer.from(await up.response.body.arrayBuffer());
    record.markFirstByte();
    if (statusCode >= 400) {
      const mapped = mapUpstreamFailure(statusCode, headerString(headers['retry-after']));
      if (mapped !== 'passthrough' || !looksLikeJson(buf)) {
        throw mapped === 'passthrough'
          ? new GatewayError('upstream_error', `The provider failed (HTTP ${statusCode}).`)
          : mapped;
      }
      void reply.code(statusCode).type('application/json').send(buf);
      this.finish(record, statusCode, 'upstream_request_error');
      return;
    }
    try {
      record.usage = openai.usageFromChatCompletion(JSON.parse(buf.toString('utf8')));
    } catch {
      throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
    }
    void reply.code(statusCode).type('application/json').send(buf);
    this.finish(record, statusCode, null);
  }

  private sendStream(up: Upstream, reply: FastifyReply, record: RequestRecord): void {
    let clientGone = false;
    // A client that hangs up must not keep the provider generating (and billing) for nobody.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) {
        clientGone = true;
        up.abort.abort();
      }
    });
    const stream = relayChatStream(up.response.body, {
      clientWantsUsage: up.clientWantsUsage,
      record,
      onEnd: ({ completed, error }) => {
        const code = clientGone
          ? 'client_disconnected'
          : error || !completed
            ? 'upstream_stream_error'
            : null;
        this.finish(record, 200, code);
      },
    });
    void reply
      .code(200)
      .headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      })
      .send(stream);
  }

  private finish(record: RequestRecord, status: number, errorCode: string | null): void {
    const pricing = record.model ? this.catalog.models.get(record.model)?.pricing : undefined;
    const cost = record.usage && pricing ? costNanos(record.usage, pricing) : 0;
    const job = record.finish(status, errorCode, cost);
    if (job) this.logs.enqueue(job);
  }
}

function requireChatBody(body: unknown): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  const b = body as JsonObject;
  if (!Array.isArray(b.messages)) {
    throw new GatewayError('invalid_request', "Missing required parameter: 'messages'.", {
      param: 'messages',
    });
  }
  if (b.stream !== undefined && typeof b.stream !== 'boolean') {
    throw new GatewayError('invalid_request', "Invalid type for 'stream': expected a boolean.", {
      param: 'stream',
    });
  }
  return b;
}

const headerString = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const looksLikeJson = (buf: Buffer): boolean => buf.length > 0 && buf[0] === 0x7b;
