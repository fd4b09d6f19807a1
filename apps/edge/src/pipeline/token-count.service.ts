import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog } from '#libs/config';
import { asGatewayError } from '#libs/protocol';
import { type ClientApi, type ClientRequestParts, servingOf, tokenizerFamilyOf } from '#libs/providers';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { nativeBodyReply } from './native-reply.js';
import { admit, type AdmissionServices, requestParts } from './client-request.js';
import { endRecord, type RequestEndServices, startRecord } from './request-end.js';
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
 * the edge CPU. Admitted by the same step as every request (`admit`) and ended by the same end
 * (`endRecord`): logged (cost 0, no usage, so no tokens against tpm), with its metrics and spans
 * (operation `count_tokens`).
 */
@Injectable()
export class TokenCountService {
  /** Per API route and model. */
  private readonly counting = new Map<string, Counting>();

  /** What admission and the shared end read: keys, configuration, quota, telemetry, logs. */
  private readonly edge: AdmissionServices & RequestEndServices;

  constructor(
    keys: KeyResolver,
    private readonly failover: FailoverService,
    logs: LogShipper,
    quota: QuotaGate,
    telemetry: EdgeTelemetry,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {
    this.edge = { keys, catalog, quota, telemetry, logs };
    // Which way a model counts follows its providers: worked out again for each version.
    catalog.onChange(() => this.counting.clear());
  }

  async handle(
    api: ClientApi,
    req: FastifyRequest,
    reply: FastifyReply,
    parts: ClientRequestParts = requestParts(req),
  ): Promise<void> {
    const record = startRecord(this.edge, req.id, api.route);
    try {
      const { body, target, model } = await admit(this.edge, api, req, parts, record, 'rates');
      const counting = this.countingOf(api, model.id);
      if (!counting.upstream) {
        const family = tokenizerFamilyOf(counting.names);
        const tokens = await api.localCount!.count(body, target, family);
        record.markFirstByte();
        void reply.code(200).type('application/json').send(api.localCount!.answer(tokens));
        return endRecord(this.edge, record, { status: 200, errorCode: null });
      }
      const run = await this.failover.call(new RequestPlan(api, body, target, req.headers), record);
      record.attempted(run.attempts, run.sessionRouted);
      // A count is never a stream: its answer was read whole and its attempt settled by the failover.
      const up = run.answer;
      if (up === null) throw run.error!;
      record.markFirstByte();
      const out = nativeBodyReply(up, up.body!);
      void reply.code(out.status).type('application/json').send(out.body);
      endRecord(this.edge, record, out);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      endRecord(this.edge, record, { status: error.status, errorCode: error.code });
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
}
