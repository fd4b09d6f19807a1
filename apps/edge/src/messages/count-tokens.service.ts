import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog } from '#libs/config';
import { asGatewayError, GatewayError } from '#libs/protocol';
import { anthropic, type JsonObject, tokenizerFamilyOf } from '#libs/providers';
import { apiKeyFromHeaders } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { authorizeModel } from '../auth/model-access.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { countTokensEndpoint, servingOf } from '../pipeline/client-endpoints.js';
import { nativeBodyReply } from '../pipeline/native-reply.js';
import { RequestPlan } from '../pipeline/request-plan.js';
import { CATALOG } from '../tokens.js';
import { FailoverService } from '../upstream/failover.service.js';

/** How a model's count_tokens requests are answered, decided once per model. */
type Counting = { readonly upstream: true } | { readonly upstream: false; readonly names: readonly string[] };

/**
 * `POST /v1/messages/count_tokens`: a model served by an Anthropic-format provider is counted by
 * that provider (routed and failed over like any request); any other model is counted here with
 * its family's tokenizer. Free: no quota admission (it would count against rpm) and no charge,
 * but logged like every request (cost 0, no usage, so no token counts against tpm either).
 */
@Injectable()
export class CountTokensService {
  private readonly counting = new Map<string, Counting>();

  constructor(
    private readonly keys: KeyResolver,
    private readonly failover: FailoverService,
    private readonly logs: LogShipper,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const endpoint = countTokensEndpoint;
    const record = new RequestRecord(req.id, endpoint.route);
    try {
      record.key = await this.keys.authenticate(apiKeyFromHeaders(req.headers, true));
      const body = requireObject(req.body);
      const invalid = endpoint.native.validate(body);
      if (invalid !== null) throw invalid;
      const model = authorizeModel(this.catalog, record.key, body.model);
      record.model = model.id;
      const counting = this.countingOf(model.id);
      if (!counting.upstream) {
        const inputTokens = await anthropic.countMessagesTokens(body, tokenizerFamilyOf(counting.names));
        record.markFirstByte();
        void reply.code(200).type('application/json').send({ input_tokens: inputTokens });
        return this.finish(record, 200, null);
      }
      const up = await this.failover.call(new RequestPlan(endpoint, body, req.headers), record);
      record.markFirstByte();
      const out = nativeBodyReply(endpoint, up, up.body!);
      void reply.code(out.status).type('application/json').send(out.body);
      this.finish(record, out.status, out.errorCode);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      this.finish(record, error.status, error.code);
    }
  }

  /** Upstream when an enabled provider able to serve it natively serves the model; else local. */
  private countingOf(modelId: string): Counting {
    let counting = this.counting.get(modelId);
    if (counting === undefined) {
      const providers = [...this.catalog.providers.values()].filter(
        (p) => p.disabledReason === null && p.models.some((m) => m.id === modelId),
      );
      const native = providers.some((p) => servingOf(countTokensEndpoint, p.type) === 'native');
      // The tokenizer family shows in the model id or in the names its providers know it by.
      const upstreamNames = providers
        .flatMap((p) => p.models.filter((m) => m.id === modelId))
        .map((m) => m.upstream);
      counting = native ? { upstream: true } : { upstream: false, names: [modelId, ...upstreamNames] };
      this.counting.set(modelId, counting);
    }
    return counting;
  }

  private finish(record: RequestRecord, status: number, errorCode: string | null): void {
    const job = record.finish(status, errorCode, 0);
    if (job) this.logs.enqueue(job);
  }
}

function requireObject(body: unknown): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  return body as JsonObject;
}
