import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog } from '#libs/config';
import { asGatewayError } from '#libs/protocol';
import { type ClientApi, type ClientRequestParts, servingOf, tokenizerFamilyOf } from '#libs/providers';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { nativeBodyReply } from './native-reply.js';
import { admit, requestParts } from './client-request.js';
import { RequestPlan } from '../upstream/request-plan.js';
import { CATALOG } from '../tokens.js';
import { FailoverService } from '../upstream/failover.service.js';

/** How a model's count_tokens requests are answered, decided once per model. */
type Counting = { readonly upstream: true } | { readonly upstream: false; readonly names: readonly string[] };

/**
 * The token-count APIs: a model served by a provider that has the API natively is counted by
 * that provider (routed and failed over like any request); any other model is counted here with
 * its family's tokenizer (the API's `localCount`). Free: no charge, and no admission by balance,
 * spend limit or budget (it answers at a zero balance), but it counts against the key's and the
 * group's request rate (rpm), as the vendors' counting endpoints are rate limited: counting costs
 * the edge CPU. Logged like every request (cost 0, no usage, so no tokens against tpm).
 */
@Injectable()
export class TokenCountService {
  /** Per API route and model. */
  private readonly counting = new Map<string, Counting>();

  /** What admission reads: the key resolver, the configuration, the quota gate. */
  private readonly edge: { keys: KeyResolver; catalog: Catalog; quota: QuotaGate };

  constructor(
    keys: KeyResolver,
    private readonly failover: FailoverService,
    private readonly logs: LogShipper,
    quota: QuotaGate,
    private readonly telemetry: EdgeTelemetry,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {
    this.edge = { keys, catalog, quota };
    // Which way a model counts follows its providers: worked out again for each version.
    catalog.onChange(() => this.counting.clear());
  }

  async handle(
    api: ClientApi,
    req: FastifyRequest,
    reply: FastifyReply,
    parts: ClientRequestParts = requestParts(req),
  ): Promise<void> {
    const record = new RequestRecord(req.id, api.route, new Date(this.edge.quota.now()));
    try {
      const { body, target, model } = await admit(this.edge, api, req, parts, record, 'rates');
      const counting = this.countingOf(api, model.id);
      if (!counting.upstream) {
        const family = tokenizerFamilyOf(counting.names);
        const tokens = await api.localCount!.count(body, target, family);
        record.markFirstByte();
        void reply.code(200).type('application/json').send(api.localCount!.answer(tokens));
        return this.finish(record, 200, null);
      }
      const run = await this.failover.call(new RequestPlan(api, body, target, req.headers), record);
      record.attempted(run.attempts, run.sessionRouted);
      // A count is never a stream: its answer was read whole and its attempt settled by the failover.
      const up = run.answer;
      if (up === null) throw run.error!;
      record.markFirstByte();
      const out = nativeBodyReply(up, up.body!);
      void reply.code(out.status).type('application/json').send(out.body);
      this.finish(record, out.status, out.errorCode);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      this.finish(record, error.status, error.code);
    }
  }

  /** Upstream when an enabled provider able to serve it natively serves the model; else local. */
  private countingOf(api: ClientApi, modelId: string): Counting {
    const key = `${api.route}\u0000${modelId}`;
    let counting = this.counting.get(key);
    if (counting === undefined) {
      const providers = [...this.catalog.providers.values()].filter(
        (p) => p.disabledReason === null && p.models.some((m) => m.id === modelId),
      );
      const native = providers.some((p) =>
        p.models.some((m) => m.id === modelId && servingOf(api, p.type, m.upstream) === 'native'),
      );
      // The tokenizer family shows in the model id or in the names its providers know it by.
      const upstreamNames = providers
        .flatMap((p) => p.models.filter((m) => m.id === modelId))
        .map((m) => m.upstream);
      counting = native ? { upstream: true } : { upstream: false, names: [modelId, ...upstreamNames] };
      this.counting.set(key, counting);
    }
    return counting;
  }

  /** The count's one end, as a model request's: its log (cost 0), its metrics and spans. */
  private finish(record: RequestRecord, status: number, errorCode: string | null): void {
    const job = record.finish(status, errorCode, 0);
    if (!job) return;
    this.telemetry.requestFinished(record, job);
    this.logs.enqueue(job);
  }
}
