import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { asGatewayError, GatewayError } from '#libs/protocol';
import { openai, type JsonObject } from '#libs/providers';
import { costNanos } from '#libs/quota';
import { apiKeyFromHeaders } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { authorizeModel } from '../auth/model-access.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { FailoverService, type UpstreamCall } from '../upstream/failover.service.js';
import { mapUpstreamFailure } from '../upstream/upstream-failure.js';
import { relayStream } from './stream-relay.js';

/** Debugging aid (`routing.provider_header`): which provider answered. */
const PROVIDER_HEADER = 'x-gateway-provider';

/**
 * An OpenAI-format endpoint (chat, completions, embeddings, responses) passed through to an
 * OpenAI-format provider, non-stream and stream; the endpoint descriptor says what differs.
 */
@Injectable()
export class PassthroughService {
  constructor(
    private readonly keys: KeyResolver,
    private readonly failover: FailoverService,
    private readonly logs: LogShipper,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.providerHeader = config.routing.provider_header;
  }

  private readonly providerHeader: boolean;

  async handle(endpoint: openai.OpenAIEndpoint, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const record = new RequestRecord(req.id, endpoint.route);
    try {
      record.key = await this.keys.authenticate(apiKeyFromHeaders(req.headers, false));
      const body = requireBody(endpoint, req.body);
      const model = authorizeModel(this.catalog, record.key, body.model);
      record.model = model.id;
      record.stream = endpoint.streams && body.stream === true;
      const up = await this.failover.call(endpoint, body, record);
      if (this.providerHeader) void reply.header(PROVIDER_HEADER, up.providerId);
      if (up.body === null) return this.sendStream(endpoint, up, reply, record);
      this.sendBody(endpoint, up, up.body, reply, record);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      this.finish(record, error.status, error.code);
    }
  }

  private sendBody(
    endpoint: openai.OpenAIEndpoint,
    up: UpstreamCall,
    buf: Buffer,
    reply: FastifyReply,
    record: RequestRecord,
  ): void {
    const { statusCode, headers } = up.response;
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
      record.usage = endpoint.usageFromBody(JSON.parse(buf.toString('utf8')));
    } catch {
      throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
    }
    void reply.code(statusCode).type('application/json').send(buf);
    this.finish(record, statusCode, null);
  }

  private sendStream(
    endpoint: openai.OpenAIEndpoint,
    up: UpstreamCall,
    reply: FastifyReply,
    record: RequestRecord,
  ): void {
    let clientGone = false;
    // A client that hangs up must not keep the provider generating (and billing) for nobody.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) {
        clientGone = true;
        up.abort();
      }
    });
    const stream = relayStream(up.response.body, {
      classify: endpoint.classifyStreamData,
      clientWantsUsage: up.clientWantsUsage,
      record,
      onEnd: ({ completed, error }) => {
        up.end(clientGone ? 'aborted' : error || !completed ? 'stream_error' : 'ok');
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

function requireBody(endpoint: openai.OpenAIEndpoint, body: unknown): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  const b = body as JsonObject;
  const missing = endpoint.missingField(b);
  if (missing !== null) {
    throw new GatewayError('invalid_request', `Missing required parameter: '${missing}'.`, {
      param: missing,
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
