import { type IncomingHttpHeaders } from 'node:http';
import { type ProviderRuntime, type ProviderType } from '#libs/config';
import { AdjustmentLog, type ChatRequest, type JsonObject, type ProviderFormat } from '#libs/providers';
import { type ClientEndpoint, servingOf } from './client-endpoints.js';
import { providerFormatOf } from './formats.js';
import { type StreamWireFormat } from './stream-meter.js';
import { upstreamHeaders } from './upstream-headers.js';

/** One candidate's upstream request, and how its answer is to be read. */
export interface PreparedAttempt {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Native chat streams: whether the client asked for the usage chunk (else it is dropped). */
  readonly clientWantsUsage: boolean;
  /** null: native passthrough; otherwise the provider format the hub request was translated to. */
  readonly provider: ProviderFormat | null;
  /** The upstream's stream format (null: the endpoint does not stream). */
  readonly wire: StreamWireFormat | null;
  /** What translating for this candidate carried or dropped (empty when passed through). */
  readonly adjustments: readonly string[];
}

/**
 * What the failover loop needs from a request: which provider types can serve it and, per
 * candidate, the upstream request. Translation happens per attempt, since candidates of one model
 * can be of different types; the hub request is built once, on the first candidate that needs it.
 */
export class RequestPlan {
  private hubRequest: ChatRequest | null = null;
  private hubAdjustments: readonly string[] = [];

  constructor(
    readonly endpoint: ClientEndpoint,
    readonly body: JsonObject,
    private readonly clientHeaders: IncomingHttpHeaders,
    /** The key's group has `translation: strict`: refuse what would be dropped as a hint. */
    private readonly strict = false,
  ) {}

  get route(): string {
    return this.endpoint.route;
  }

  serves(type: ProviderType): boolean {
    return servingOf(this.endpoint, type) !== 'none';
  }

  /** Throws `invalid_request` (GatewayError) when the provider's format cannot express the request. */
  prepare(provider: ProviderRuntime, upstreamModel: string): PreparedAttempt {
    const e = this.endpoint;
    const headers = upstreamHeaders(provider, this.clientHeaders);
    if (servingOf(e, provider.type) === 'native') {
      const native = e.nativeByType[provider.type] ?? e.native;
      const prepared = native.prepareRequest(this.body, upstreamModel);
      return {
        path: native.path,
        headers,
        body: JSON.stringify(prepared.body),
        clientWantsUsage: prepared.clientWantsUsage,
        provider: null,
        wire: native.streamFormat,
        adjustments: [],
      };
    }
    const format = providerFormatOf(provider)!;
    const hub = this.hubRequest ?? this.translateToHub();
    const adjust = new AdjustmentLog(this.strict);
    const up = format.fromHub(hub, upstreamModel, adjust);
    return {
      path: up.path,
      headers: { ...headers, ...up.headers },
      body: JSON.stringify(up.body),
      clientWantsUsage: true,
      provider: format,
      wire: format.name === 'anthropic' ? 'anthropic' : 'openai-chat',
      adjustments: [...this.hubAdjustments, ...adjust.items],
    };
  }

  /** Once per request: the hub request, and what reaching it carried or dropped. */
  private translateToHub(): ChatRequest {
    const client = this.endpoint.hub!;
    const adjust = new AdjustmentLog(this.strict);
    this.hubRequest = client.toHub(this.body, adjust);
    // The client's vendor headers tune its vendor's API, which a translated request never reaches.
    for (const header of client.vendorHeaders) {
      if (this.clientHeaders[header] !== undefined) adjust.drop(`${header} header`);
    }
    this.hubAdjustments = adjust.items;
    return this.hubRequest;
  }
}
