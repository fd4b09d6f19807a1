import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Catalog, type GatewayConfig } from '#libs/config';
import { type ClientApi, type ClientRequestParts } from '#libs/providers';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { LogShipper } from '../logs/log-shipper.service.js';
import { QuotaGate } from '../quota/quota-gate.service.js';
import { StreamMarkers } from '../streams/stream-markers.store.js';
import { EdgeTelemetry } from '../telemetry/edge-telemetry.service.js';
import { CATALOG, CONFIG } from '../tokens.js';
import { AttemptSettler } from '../upstream/attempt-settler.js';
import { FailoverService } from '../upstream/failover.service.js';
import { type ClientAnswer, replyAnswer } from './client-answer.js';
import { requestParts } from './client-request.js';
import { type EdgeServices, type ModelInput, ModelRequest } from './model-request.js';
import { ownRecord, type RecordKeeper } from './request-end.js';

/**
 * Every model endpoint (chat, completions, embeddings, responses, messages), non-stream and
 * stream: each request is a `ModelRequest` (model-request.ts), which owns it from admission to
 * its log and charge. This holds what they share: the edge's services and settings.
 */
@Injectable()
export class ModelRequestService implements EdgeServices {
  readonly providerHeader: boolean;
  readonly strictGroups: ReadonlySet<string>;

  constructor(
    readonly keys: KeyResolver,
    readonly failover: FailoverService,
    readonly settler: AttemptSettler,
    readonly logs: LogShipper,
    readonly quota: QuotaGate,
    readonly telemetry: EdgeTelemetry,
    readonly markers: StreamMarkers,
    @Inject(CATALOG) readonly catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.providerHeader = config.routing.provider_header;
    this.strictGroups = new Set(config.strict_translation_groups);
  }

  handle(
    api: ClientApi,
    req: FastifyRequest,
    reply: FastifyReply,
    parts: ClientRequestParts = requestParts(req),
  ): Promise<void> {
    return new ModelRequest(this, api, req, replyAnswer(reply), ownRecord(this, api.route)).handle(parts);
  }

  /**
   * A request some exchange carries (one event of a WebSocket session): answered on `answer`, its
   * record started and ended by `keeper` (the session's `RequestOwner`).
   */
  serve(
    api: ClientApi,
    input: ModelInput,
    answer: ClientAnswer,
    keeper: RecordKeeper,
    parts: ClientRequestParts,
  ): Promise<void> {
    return new ModelRequest(this, api, input, answer, keeper).handle(parts);
  }
}
