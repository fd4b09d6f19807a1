import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { asGatewayError } from '#libs/protocol';
import {
  adjustmentsHeader,
  type ClientApi,
  type ClientContext,
  type ClientRequestParts,
} from '#libs/providers';
import { appliedPrices, costOf } from '#libs/quota';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { authorizeModel } from '../auth/model-access.js';
import { sendError } from '../http/send-error.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { streamMarker } from './stream-marker.js';
import { StreamMarkers } from '../streams/stream-markers.store.js';
import { readClientRequest, requestParts } from './client-request.js';
import { directBodyReply } from './direct-reply.js';
import { hubBodyReply, hubHooks } from './hub-reply.js';
import { nativeBodyReply } from './native-reply.js';
import { nativeHooks } from './native-stream.js';
import { decodedStream } from './decoded-stream.js';
import { FallbackChain } from './fallback-chain.js';
import { relay } from './relay.js';
import { RequestPlan } from '../upstream/request-plan.js';
import { sendSse } from './sse-writer.js';
import { cutStreamUsage } from './cut-usage.js';
import { estimatedBodyUsage, OutputSampler } from './usage-estimate.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { parseAnswer } from '../telemetry/answer-body.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { FailoverService, type UpstreamCall } from '../upstream/failover.service.js';

/** Debugging aid (`routing.provider_header`): which provider answered. */
const PROVIDER_HEADER = 'x-gateway-provider';
/** What translation carried or dropped, in short (the log row has the whole list). */
const ADJUSTMENTS_HEADER = 'x-gateway-adjustments';
/** A fallback answered: the model that did, and the model the request was for. */
const MODEL_HEADER = 'x-gateway-model';
const FALLBACK_FROM_HEADER = 'x-gateway-fallback-from';

/**
 * Every model endpoint (chat, completions, embeddings, responses, messages), non-stream and
 * stream: auth, model access, the failover loop, then the answer, passed through when the provider
 * speaks the client's format and translated through the hub when not. One finish path logs and
 * charges every request, whatever way it ends.
 */
@Injectable()
export class ModelRequestService {
  constructor(
    private readonly keys: KeyResolver,
    private readonly failover: FailoverService,
    private readonly logs: LogShipper,
    private readonly quota: QuotaGate,
    private readonly telemetry: EdgeTelemetry,
    private readonly markers: StreamMarkers,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.providerHeader = config.routing.provider_header;
    this.strictGroups = new Set(config.strict_translation_groups);
  }

  private readonly providerHeader: boolean;
  private readonly strictGroups: ReadonlySet<string>;

  async handle(
    api: ClientApi,
    req: FastifyRequest,
    reply: FastifyReply,
    parts: ClientRequestParts = requestParts(req),
  ): Promise<void> {
    const record = new RequestRecord(req.id, api.route, new Date(this.quota.now()));
    try {
      const snapshot = this.catalog.snapshot();
      const { key, body, target } = await readClientRequest(this.keys, api, req, parts, record);
      record.requested(target.model);
      const model = authorizeModel(snapshot, key, target.model);
      record.targeted(model.id, api.streams && target.stream, model.pricing);
      await this.quota.admit(key, model.id);
      const strict = this.strictGroups.has(key.group);
      const plan = new RequestPlan(api, body, target, req.headers, strict);
      this.telemetry.requestPlanned(record, plan);
      const fallbacks =
        snapshot.fallbacksOf(key.group, model.id).length > 0
          ? new FallbackChain(snapshot, key, model, record, this.quota)
          : undefined;
      const up = await this.failover.call(plan, record, fallbacks);
      if (record.fallbackFrom !== null) {
        void reply.header(MODEL_HEADER, record.model).header(FALLBACK_FROM_HEADER, record.fallbackFrom);
      }
      if (this.providerHeader) void reply.header(PROVIDER_HEADER, up.providerId);
      const adjusted = adjustmentsHeader(up.prepared.adjustments);
      if (adjusted !== null) void reply.header(ADJUSTMENTS_HEADER, adjusted);
      if (up.body === null) return this.sendStream(plan, up, reply, record);
      this.sendBody(plan, up, up.body, reply, record);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(reply, error);
      this.finish(record, error.status, error.code);
    }
  }

  private sendBody(
    plan: RequestPlan,
    up: UpstreamCall,
    buf: Buffer,
    reply: FastifyReply,
    record: RequestRecord,
  ): void {
    record.markFirstByte();
    this.telemetry.responseReceived(record, buf, up.prepared.wire);
    const { provider, direct } = up.prepared;
    const out =
      direct !== undefined
        ? directBodyReply(direct, up, buf, clientContext(plan, record))
        : provider === null
          ? nativeBodyReply(up, buf)
          : hubBodyReply(plan.api.hub!, provider, up, buf, clientContext(plan, record));
    if (out.usage === null && out.errorCode === null) {
      // An answer without usage is still charged: never a free request because a vendor omits it.
      record.measured(estimatedBodyUsage(plan.body, parseAnswer(buf)), true);
    } else record.measured(out.usage);
    void reply.code(out.status).type('application/json').send(out.body);
    this.finish(record, out.status, out.errorCode);
  }

  private sendStream(plan: RequestPlan, up: UpstreamCall, reply: FastifyReply, record: RequestRecord): void {
    const { prepared } = up;
    const wire = prepared.wire!;
    const meter = this.telemetry.streamStarted(record, wire.meter(prepared.clientWantsUsage), wire);
    const sampler = new OutputSampler(wire);
    const hooks =
      prepared.native !== null
        ? nativeHooks(prepared.native, wire, prepared.clientWantsUsage)
        : hubHooks(plan.api.hub!, prepared.provider!, clientContext(plan, record));
    let clientGone = false;
    // Before any byte goes out, so a stream cut by this edge's death is still charged (docs/quota.md).
    const marker = streamMarker(record, plan.body);
    const upstream = up.stream!;
    const body = wire.streamDecoder === undefined ? upstream : decodedStream(upstream, wire.streamDecoder());
    const source = relay(body, {
      meter,
      sampler,
      record,
      hooks,
      markerWritten: marker === null ? Promise.resolve() : this.markers.open(marker),
      onEnd: ({ completed }) => {
        up.end(clientGone ? 'aborted' : completed ? 'ok' : 'stream_error');
        const code = clientGone ? 'client_disconnected' : completed ? null : 'upstream_stream_error';
        this.telemetry.streamEnded(record, meter);
        record.measured(meter.usage, !meter.usageFinal);
        if (meter.usageFinal) return this.finish(record, 200, code);
        // A cut stream is charged for what it produced, counted by the model's tokenizer.
        const names = [record.model ?? '', record.upstreamModel ?? ''];
        this.logs.expect(
          cutStreamUsage(meter.usage, plan.body, sampler, names).then((usage) => {
            record.measured(usage, true);
            this.finish(record, 200, code);
          }),
        );
      },
    });
    // A client that hangs up must not keep the provider generating (and billing) for nobody.
    sendSse(reply, source, () => {
      clientGone = true;
      up.abort();
    });
  }

  private finish(record: RequestRecord, status: number, errorCode: string | null): void {
    const pricing = record.pricing;
    if (record.usage && pricing) record.priced(appliedPrices(pricing, record.usage.inputTokens));
    const cost = record.usage && record.prices ? costOf(record.usage, record.prices) : 0;
    const job = record.finish(status, errorCode, cost);
    if (!job) return;
    this.telemetry.requestFinished(record, job);
    this.logs.enqueue(job);
    this.quota.settle(record, cost);
  }
}

function clientContext(plan: RequestPlan, record: RequestRecord): ClientContext {
  return {
    requestId: record.requestId,
    model: record.model ?? '',
    created: Math.floor(Date.now() / 1000),
    includeUsage: plan.api.includeUsage(plan.body),
    request: plan.body,
  };
}
