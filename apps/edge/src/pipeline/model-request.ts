import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type KeyRecord } from '#libs/auth';
import { type Catalog, type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { asGatewayError } from '#libs/protocol';
import {
  adjustmentsHeader,
  type ClientApi,
  type ClientContext,
  type ClientRequestParts,
  type StreamMeter,
} from '#libs/providers';
import { appliedPrices, costOf } from '#libs/quota';
import { type KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { type LogShipper } from '../logs/log-shipper.service.js';
import { RequestRecord } from '../logs/request-record.js';
import { type QuotaGate } from '../quota/quota-gate.service.js';
import { type StreamMarkers } from '../streams/stream-markers.store.js';
import { parseAnswer } from '../telemetry/answer-body.js';
import { type EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { type AttemptSettler } from '../upstream/attempt-settler.js';
import { type FailoverService } from '../upstream/failover.service.js';
import { RequestPlan } from '../upstream/request-plan.js';
import { type UpstreamCall, type UpstreamRun } from '../upstream/upstream-run.js';
import { admit } from './client-request.js';
import { cutStreamUsage } from './cut-usage.js';
import { decodedStream } from './decoded-stream.js';
import { directBodyReply } from './direct-reply.js';
import { FallbackChain } from './fallback-chain.js';
import { hubBodyReply, hubHooks } from './hub-reply.js';
import { type BodyReply, nativeBodyReply } from './native-reply.js';
import { nativeHooks } from './native-stream.js';
import { relay, type RelayHooks, type RelayOwner } from './relay.js';
import { openSse } from './sse-writer.js';
import { streamMarker } from './stream-marker.js';
import { estimatedBodyUsage, OutputSampler } from './usage-estimate.js';

/** Debugging aid (`routing.provider_header`): which provider answered. */
const PROVIDER_HEADER = 'x-gateway-provider';
/** What translation carried or dropped, in short (the log row has the whole list). */
const ADJUSTMENTS_HEADER = 'x-gateway-adjustments';
/** A fallback answered: the model that did, and the model the request was for. */
const MODEL_HEADER = 'x-gateway-model';
const FALLBACK_FROM_HEADER = 'x-gateway-fallback-from';

/** What every request's lifecycle uses: the edge's services and settings (`ModelRequestService`). */
export interface EdgeServices {
  readonly keys: KeyResolver;
  readonly failover: FailoverService;
  readonly settler: AttemptSettler;
  readonly logs: LogShipper;
  readonly quota: QuotaGate;
  readonly telemetry: EdgeTelemetry;
  readonly markers: StreamMarkers;
  readonly catalog: Catalog;
  /** `routing.provider_header`. */
  readonly providerHeader: boolean;
  /** The groups with `translation: strict`. */
  readonly strictGroups: ReadonlySet<string>;
}

/** How a stream handed to the client ended: whole, broken off upstream, or the client hung up. */
export type StreamEnd = 'ok' | 'stream_error' | 'aborted';

/** How a request ended: what the client was told, and for a relayed stream, how it ended. */
export interface Outcome {
  readonly status: number;
  /** The log's error code: null for a success. */
  readonly errorCode: string | null;
  /** Only for a stream the relay ended. */
  readonly stream?: StreamEnd;
}

/** The ends of a relayed stream (its headers said 200): shared, as they never change. */
const STREAM_WHOLE: Outcome = { status: 200, errorCode: null, stream: 'ok' };
const STREAM_BROKEN: Outcome = { status: 200, errorCode: 'upstream_stream_error', stream: 'stream_error' };
const STREAM_LEFT: Outcome = { status: 200, errorCode: 'client_disconnected', stream: 'aborted' };

/**
 * One request of a model endpoint, from admission to its log and charge: the one owner of its
 * record. `handle` reads top to bottom: admission (key, body, model, quota), the plan, the
 * failover (whose attempts come back as values and are copied onto the record), then the answer,
 * a body or a relayed stream. Every way out (an error before any upstream, a body, a stream whole,
 * cut, or left by its client, the edge shutting down) goes through `end(outcome)`, once, which
 * settles in one place the answering attempt (its sample and provider slot), the measured usage,
 * the telemetry, the log job and the quota charge.
 */
export class ModelRequest implements RelayOwner {
  readonly record: RequestRecord;
  private plan: RequestPlan | null = null;
  private run: UpstreamRun | null = null;
  /** A relayed stream's meter and sampler: its usage, or what a cut one is charged by. */
  private meter: StreamMeter | null = null;
  private sampler: OutputSampler | null = null;
  private clientLeft = false;
  private ended = false;

  constructor(
    private readonly edge: EdgeServices,
    private readonly api: ClientApi,
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    // From the quota gate's clock: the start places the charge in its budget windows.
    this.record = new RequestRecord(req.id, api.route, new Date(edge.quota.now()));
  }

  async handle(parts: ClientRequestParts): Promise<void> {
    const { edge, record } = this;
    try {
      // Admission: the key, the body, a model the key's group may use, and its quota.
      const { key, body, target, model, snapshot } = await admit(
        edge,
        this.api,
        this.req,
        parts,
        record,
        'charged',
      );
      // The plan: how each candidate is asked, translated per provider format.
      const strict = edge.strictGroups.has(key.group);
      this.plan = new RequestPlan(this.api, body, target, this.req.headers, strict);
      edge.telemetry.requestPlanned(record, this.plan);
      // The failover: candidates, then fallbacks; its attempts and answer come back as values.
      const run = await edge.failover.call(this.plan, record, this.fallbacks(snapshot, key, model));
      const answer = this.took(run, snapshot);
      // The answer: a body, or a stream relayed until its end.
      this.answerHeaders(answer);
      if (answer.body === null) this.relay(answer);
      else this.sendBody(answer, answer.body);
    } catch (err) {
      const error = asGatewayError(err);
      sendError(this.reply, error);
      this.end({ status: error.status, errorCode: error.code });
    }
  }

  /** The relay writes to the client (RelayOwner): the first write is the request's time to first token. */
  firstByte(): void {
    this.record.markFirstByte();
  }

  /** The relay ended (RelayOwner): how the stream ended for the client. */
  relayEnded(completed: boolean): void {
    this.end(this.clientLeft ? STREAM_LEFT : completed ? STREAM_WHOLE : STREAM_BROKEN);
  }

  /** The client hung up mid-stream (RelayOwner): the provider must not generate (and bill) for nobody. */
  clientGone(): void {
    this.clientLeft = true;
    this.run?.cancel();
  }

  /**
   * The request's one end, whatever way it ends: the answering attempt settled, a stream's usage
   * measured (a cut one counted by the model's tokenizer first), then the log job, the telemetry
   * and the charge. Exactly once.
   */
  end(outcome: Outcome): void {
    if (this.ended) return;
    this.ended = true;
    this.settleUpstream(outcome.stream);
    const meter = outcome.stream === undefined ? null : this.meter;
    if (meter === null) return this.close(outcome);
    this.edge.telemetry.streamEnded(this.record, meter);
    this.record.measured(meter.usage, !meter.usageFinal);
    if (meter.usageFinal) return this.close(outcome);
    // The log shipper waits for the count at shutdown: a cut stream is never left unlogged.
    this.edge.logs.expect(this.closeCut(outcome, meter, this.sampler!));
  }

  /** Whether the request has a fallback chain (docs/routing.md, "Fallbacks"). */
  private fallbacks(
    snapshot: CatalogSnapshot,
    key: KeyRecord,
    model: ModelConfig,
  ): FallbackChain | undefined {
    return snapshot.fallbacksOf(key.group, model.id).length > 0
      ? new FallbackChain(snapshot, key, model, this.edge.quota)
      : undefined;
  }

  /** The failover's values onto the record: the model that answered, every attempt; its error thrown. */
  private took(run: UpstreamRun, snapshot: CatalogSnapshot): UpstreamCall {
    this.run = run;
    const { record } = this;
    if (run.model !== record.model) {
      record.fellBack(run.model, snapshot.models.get(run.model)?.pricing ?? null);
    }
    record.attempted(run.attempts, run.sessionRouted);
    if (run.answer === null) throw run.error!;
    return run.answer;
  }

  private answerHeaders(up: UpstreamCall): void {
    const { record, reply } = this;
    if (record.fallbackFrom !== null) {
      void reply.header(MODEL_HEADER, record.model).header(FALLBACK_FROM_HEADER, record.fallbackFrom);
    }
    if (this.edge.providerHeader) void reply.header(PROVIDER_HEADER, up.providerId);
    const adjusted = adjustmentsHeader(up.prepared.adjustments);
    if (adjusted !== null) void reply.header(ADJUSTMENTS_HEADER, adjusted);
  }

  /** A non-stream answer: passed through, translated through the hub, or a direct attempt's. */
  private sendBody(up: UpstreamCall, buf: Buffer): void {
    const { record } = this;
    const plan = this.plan!;
    record.markFirstByte();
    this.edge.telemetry.responseReceived(record, buf, up.prepared.wire);
    const out = this.bodyReply(up, buf);
    if (out.usage === null && out.errorCode === null) {
      // An answer without usage is still charged: never a free request because a vendor omits it.
      record.measured(estimatedBodyUsage(plan.body, parseAnswer(buf)), true);
    } else record.measured(out.usage);
    void this.reply.code(out.status).type('application/json').send(out.body);
    this.end({ status: out.status, errorCode: out.errorCode });
  }

  private bodyReply(up: UpstreamCall, buf: Buffer): BodyReply {
    const { provider, direct } = up.prepared;
    if (direct !== undefined) return directBodyReply(direct, up, buf, this.clientContext());
    if (provider === null) return nativeBodyReply(up, buf);
    return hubBodyReply(this.plan!.api.hub!, provider, up, buf, this.clientContext());
  }

  /** A stream: relayed as it comes, its start marker written before any byte (docs/quota.md). */
  private relay(up: UpstreamCall): void {
    const { record, edge } = this;
    const plan = this.plan!;
    const { prepared } = up;
    const wire = prepared.wire!;
    const hooks: RelayHooks =
      prepared.native !== null
        ? nativeHooks(prepared.native, wire, prepared.clientWantsUsage)
        : hubHooks(plan.api.hub!, prepared.provider!, this.clientContext());
    // Before any byte goes out, so a stream cut by this edge's death is still charged.
    const marker = streamMarker(record, plan.body);
    const meter = edge.telemetry.streamStarted(record, wire.meter(prepared.clientWantsUsage), wire);
    const sampler = new OutputSampler(wire);
    this.meter = meter;
    this.sampler = sampler;
    const upstream = up.stream!;
    const body = wire.streamDecoder === undefined ? upstream : decodedStream(upstream, wire.streamDecoder());
    relay(body, openSse(this.reply), {
      meter,
      sampler,
      hooks,
      markerWritten: marker === null ? Promise.resolve() : edge.markers.open(marker),
      owner: this,
    });
  }

  /**
   * The attempt whose stream was handed to the client, settled now: its sample and its provider
   * slot (a body's attempt was settled by the failover). A stream the request ends without its
   * relay's word (an error before the relay began) is stopped and counted as broken.
   */
  private settleUpstream(how: StreamEnd | undefined): void {
    const run = this.run;
    if (run === null) return;
    run.stopDeadline();
    const attempt = run.answer?.attempt;
    if (attempt === undefined || attempt.ended !== null) return;
    if (how === undefined) run.cancel();
    const ended = how ?? 'stream_error';
    if (ended !== 'ok') this.record.failLastAttempt(ended);
    this.edge.settler.settle(this.record, attempt, ended);
  }

  /** A stream cut before the upstream's final count: charged for what it produced. */
  private async closeCut(outcome: Outcome, meter: StreamMeter, sampler: OutputSampler): Promise<void> {
    const { record } = this;
    const names = [record.model ?? '', record.upstreamModel ?? ''];
    record.measured(await cutStreamUsage(meter.usage, this.plan!.body, sampler, names), true);
    this.close(outcome);
  }

  /** The log job, the telemetry and the charge, at the prices the request started on. */
  private close({ status, errorCode }: Outcome): void {
    const { record, edge } = this;
    const pricing = record.pricing;
    if (record.usage && pricing) record.priced(appliedPrices(pricing, record.usage.inputTokens));
    const cost = record.usage && record.prices ? costOf(record.usage, record.prices) : 0;
    const job = record.finish(status, errorCode, cost);
    if (!job) return;
    edge.telemetry.requestFinished(record, job);
    edge.logs.enqueue(job);
    edge.quota.settle(record, cost);
  }

  private clientContext(): ClientContext {
    const plan = this.plan!;
    return {
      requestId: this.record.requestId,
      model: this.record.model ?? '',
      created: Math.floor(Date.now() / 1000),
      includeUsage: plan.api.includeUsage(plan.body),
      request: plan.body,
    };
  }
}
