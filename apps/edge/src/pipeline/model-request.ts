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
import { type KeyResolver } from '../auth/key-resolver.service.js';
import { type RequestRecord } from '../logs/request-record.js';
import { type StreamMarkers } from '../streams/stream-markers.store.js';
import { parseAnswer } from '../telemetry/answer-body.js';
import { type AttemptSettler } from '../upstream/attempt-settler.js';
import { type FailoverService } from '../upstream/failover.service.js';
import { RequestPlan } from '../upstream/request-plan.js';
import { type UpstreamCall, type UpstreamRun } from '../upstream/upstream-run.js';
import { type ClientAnswer } from './client-answer.js';
import { admit, type ClientInput } from './client-request.js';
import { cutStreamUsage } from './cut-usage.js';
import { decodedStream } from './decoded-stream.js';
import { directBodyReply } from './direct-reply.js';
import { FallbackChain } from './fallback-chain.js';
import { hubBodyReply, hubHooks } from './hub-reply.js';
import { type BodyReply, nativeBodyReply } from './native-reply.js';
import { nativeHooks } from './native-stream.js';
import { relay, type RelayHooks, type RelayOwner } from './relay.js';
import { type Outcome, type RecordKeeper, type RequestEndServices, type StreamEnd } from './request-end.js';
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
export interface EdgeServices extends RequestEndServices {
  readonly keys: KeyResolver;
  readonly failover: FailoverService;
  readonly settler: AttemptSettler;
  readonly markers: StreamMarkers;
  readonly catalog: Catalog;
  /** `routing.provider_header`. */
  readonly providerHeader: boolean;
  /** The groups with `translation: strict`. */
  readonly strictGroups: ReadonlySet<string>;
}

/** The ends of a relayed stream (its headers said 200): shared, as they never change. */
const STREAM_WHOLE: Outcome = { status: 200, errorCode: null, stream: 'ok' };
const STREAM_BROKEN: Outcome = { status: 200, errorCode: 'upstream_stream_error', stream: 'stream_error' };
const STREAM_LEFT: Outcome = { status: 200, errorCode: 'client_disconnected', stream: 'aborted' };

/** What a request is read from: a Fastify request, or one event of a WebSocket session (its own id). */
export interface ModelInput extends ClientInput {
  readonly id: string;
}

/**
 * One request of a model endpoint, from admission to its log and charge: the one owner of its
 * record. `handle` reads top to bottom: admission (key, body, model, quota), the plan, the
 * failover (whose attempts come back as values and are copied onto the record), then the answer,
 * a body or a relayed stream. Every way out (an error before any upstream, a body, a stream whole,
 * cut, or left by its client, the edge shutting down) goes through `end(outcome)`, once, which
 * settles in one place the answering attempt (its sample and provider slot) and the measured
 * usage, then hands the record to the end every endpoint kind shares (`endRecord`: the log job,
 * the telemetry and the quota charge). A WebSocket session or a job owns each request it carries
 * the same way, through a `RequestOwner` (request-owner.ts): the `keeper` starts and ends the
 * record, and the `answer` is where the client is answered (the reply, or the session's socket).
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
    private readonly req: ModelInput,
    private readonly answer: ClientAnswer,
    private readonly keeper: RecordKeeper,
  ) {
    this.record = keeper.start(req.id);
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
      this.answer.error(error);
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
    if (meter === null) return this.keeper.end(this.record, outcome);
    this.edge.telemetry.streamEnded(this.record, meter);
    this.record.measured(meter.usage, !meter.usageFinal);
    if (meter.usageFinal) return this.keeper.end(this.record, outcome);
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
    const { record, answer } = this;
    if (record.fallbackFrom !== null) {
      answer.header(MODEL_HEADER, record.model ?? '');
      answer.header(FALLBACK_FROM_HEADER, record.fallbackFrom);
    }
    if (this.edge.providerHeader) answer.header(PROVIDER_HEADER, up.providerId);
    const adjusted = adjustmentsHeader(up.prepared.adjustments);
    if (adjusted !== null) answer.header(ADJUSTMENTS_HEADER, adjusted);
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
    this.answer.body(out.status, out.body);
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
    relay(body, this.answer.stream(), {
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
    this.keeper.end(record, outcome);
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
