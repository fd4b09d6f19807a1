import { type IncomingHttpHeaders } from 'node:http';
import { type ProviderRuntime } from '#libs/config';
import { type GatewayError } from '#libs/protocol';
import {
  AdjustmentLog,
  type ChatRequest,
  type ClientApi,
  type JsonObject,
  type NativeRoute,
  adapterOf,
  descriptorOf,
  type ProviderEndpoint,
  type ProviderFormat,
  type RequestTarget,
  servingOf,
  type WireFormat,
} from '#libs/providers';
import { refusalReader, type RefusalReader } from './refusal.js';
import { type DirectAttempt, directAttempt } from './direct-attempt.js';
import { requestSession } from '../routing/session-key.js';

/** One candidate's upstream request, and how its answer is to be read. */
export interface PreparedAttempt {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the client asked for the usage event the gateway always asks for (else it is hidden). */
  readonly clientWantsUsage: boolean;
  /** The provider's own route for the client's API when passed through; null when translated. */
  readonly native: NativeRoute | null;
  /** The provider format the hub request was translated to; null when passed through. */
  readonly provider: ProviderFormat | null;
  /** How the upstream's answer reads (null: no generation, such as a token count). */
  readonly wire: WireFormat | null;
  /** What translating for this candidate carried or dropped (empty when passed through). */
  readonly adjustments: readonly string[];
  /** Whether an error answer refuses the gateway's credentials, and why (its adapter knows). */
  readonly refusal: RefusalReader;
  /** An error answer the gateway renders itself in the client's shape (its adapter knows), else null. */
  clientError(status: number, body: Buffer): GatewayError | null;
  /** Whether an error answer refuses the prompt as too long for the model's window (its adapter knows). */
  contextExceeded(status: number, body: Buffer): boolean;
  /**
   * Served by the adapter's own translator (`DirectRoute`): every call of the attempt (the first
   * is also `path`, `headers` and `body`), and how their answers become the client's. Absent
   * for a native or hub-translated attempt.
   */
  readonly direct?: DirectAttempt;
}

/** Per provider, built on its first request: where a provider whose settings place its URLs takes them. */
const ENDPOINTS = new WeakMap<ProviderRuntime, ProviderEndpoint | null>();

function endpointOf(provider: ProviderRuntime): ProviderEndpoint | null {
  let endpoint = ENDPOINTS.get(provider);
  if (endpoint === undefined) {
    endpoint = descriptorOf(provider.type).adapter.endpoint?.(provider) ?? null;
    ENDPOINTS.set(provider, endpoint);
  }
  return endpoint;
}

const noClientError = (): null => null;
const neverTooLong = (): boolean => false;

/**
 * What the failover loop needs from a request: which provider types can serve it and, per
 * candidate, the upstream request. Translation happens per attempt, since candidates of one model
 * can be of different types; the hub request is built once, on the first candidate that needs it.
 */
export class RequestPlan {
  private hubRequest: ChatRequest | null = null;
  private hubAdjustments: AdjustmentLog | null = null;
  private sessionOf: number | null | undefined;

  constructor(
    readonly api: ClientApi,
    readonly body: JsonObject,
    readonly target: RequestTarget,
    private readonly clientHeaders: IncomingHttpHeaders,
    /** The key's group has `translation: strict`: refuse what would be dropped as a hint. */
    private readonly strict = false,
  ) {}

  get route(): string {
    return this.api.route;
  }

  /** The hash of the agent session the request belongs to, or null (session-key.ts); read once. */
  get session(): number | null {
    if (this.sessionOf === undefined)
      this.sessionOf = requestSession(this.api, this.body, this.clientHeaders);
    return this.sessionOf;
  }

  /** Whether a provider of `type` can serve the request, for one of its models (any, when none is named). */
  serves(type: string, upstreamModel?: string): boolean {
    return servingOf(this.api, type, upstreamModel) !== 'none';
  }

  /** Throws `invalid_request` (GatewayError) when the provider's format cannot express the request. */
  prepare(provider: ProviderRuntime, servedUpstream: string): PreparedAttempt {
    const adapter = adapterOf(provider.type, servedUpstream);
    const headers = adapter.upstreamHeaders(provider.apiKey, this.clientHeaders);
    const native = adapter.native[this.api.name];
    const refusal = refusalReader(adapter, provider);
    const clientError = adapter.clientError ?? noClientError;
    const contextExceeded = adapter.contextExceeded ?? neverTooLong;
    const endpoint = adapter.endpoint === undefined ? null : endpointOf(provider);
    const upstreamModel = endpoint === null ? servedUpstream : endpoint.model(servedUpstream);
    if (native !== undefined) {
      const prepared = native.prepare(this.body, upstreamModel, this.clientHeaders);
      const path = native.path(upstreamModel, this.target.stream);
      return {
        path: endpoint === null ? path : endpoint.path(path, servedUpstream),
        headers,
        body: JSON.stringify(prepared.body),
        clientWantsUsage: prepared.clientWantsUsage,
        native,
        provider: null,
        wire: native.wire,
        adjustments: [],
        refusal,
        clientError,
        contextExceeded,
      };
    }
    const direct = adapter.direct?.[this.api.name];
    if (direct !== undefined) {
      const adjust = new AdjustmentLog(this.strict);
      const place = (path: string): string =>
        endpoint === null ? path : endpoint.path(path, servedUpstream);
      const errorMessage = adapter.hubFormat(provider).errorMessage;
      const attempt = directAttempt(
        direct.plan(this.body, upstreamModel, adjust),
        headers,
        place,
        errorMessage,
      );
      const first = attempt.calls[0]!;
      return {
        path: first.path,
        headers: { ...first.headers },
        body: first.body,
        clientWantsUsage: true,
        native: null,
        provider: null,
        wire: null,
        adjustments: adjust.items,
        refusal,
        clientError,
        contextExceeded,
        direct: attempt,
      };
    }
    const format = adapter.hubFormat(provider);
    const hub = this.hubRequest ?? this.translateToHub();
    const adjust = new AdjustmentLog(this.strict, this.hubAdjustments ?? undefined);
    const up = format.fromHub(hub, upstreamModel, adjust);
    return {
      path: endpoint === null ? up.path : endpoint.path(up.path, servedUpstream),
      // Not a spread: V8 11 takes a slow path (about 1 µs) for a spread that adds keys.
      headers: Object.assign({}, headers, up.headers),
      body: JSON.stringify(up.body),
      clientWantsUsage: true,
      native: null,
      provider: format,
      wire: format.wire,
      adjustments: adjust.items,
      refusal,
      clientError,
      contextExceeded,
    };
  }

  /** Once per request: the hub request, and what reaching it carried or dropped. */
  private translateToHub(): ChatRequest {
    const client = this.api.hub!;
    const adjust = new AdjustmentLog(this.strict);
    this.hubRequest = client.toHub(this.body, adjust, this.target);
    // The client's vendor headers tune its vendor's API, which a translated request never reaches.
    for (const header of client.vendorHeaders) {
      if (this.clientHeaders[header] !== undefined) adjust.drop(`${header} header`);
    }
    this.hubAdjustments = adjust;
    return this.hubRequest;
  }
}
