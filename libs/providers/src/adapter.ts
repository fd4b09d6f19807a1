import { type SessionProtocol } from './session-protocol.js';
import { type ProviderConfig } from '#libs/config';
import { type ClientFormat as ErrorFormat, type GatewayError } from '#libs/protocol';
import { type InputMessage, type MessagePart, type OutputMessage } from '#libs/telemetry';
import { type TokenizerFamily } from './tokenizer.js';
import { type Adjustments } from './adjustments.js';
import {
  type ClientContext,
  type ClientFormat,
  type ProviderFormat,
  type UpstreamRequest,
} from './translation.js';
import { type CanonicalUsage, type JsonObject } from './types.js';
import { type RealtimeRoute } from './realtime.js';

/**
 * The contracts between the edge and the vendor folders. Everything the gateway knows about a
 * vendor's wire format sits behind these: the edge reads usage, ends streams, frames errors and
 * captures content through them, and never names a vendor or switches on a format. Each folder
 * exports its implementations; `registry.ts` maps provider types and client APIs to them.
 */

/** What an answer (a body, or a stream's rare events) says about itself, for the GenAI span attributes. */
export interface ResponseFacts {
  readonly model: string | null;
  readonly finishReasons: string[];
}

/**
 * Watches one upstream stream, event by event, for its usage and its end, without parsing the
 * common delta events.
 */
export interface StreamMeter {
  /** One upstream `data:` payload; false when it must not reach the client (the usage chunk it did not ask for). */
  see(data: string): boolean;
  /** The upstream said its stream is complete. */
  readonly completed: boolean;
  /** The best usage known so far. */
  readonly usage: CanonicalUsage | null;
  /** Whether `usage` is the upstream's final count (otherwise a cut stream's usage is estimated). */
  readonly usageFinal: boolean;
  /** Model and finish reasons the stream named; may parse kept events: once, at the end, only when tracing. */
  facts(): ResponseFacts | null;
}

/** What a stream produced, put back together from its deltas for content capture. */
export interface StreamTranscript {
  /** One upstream `data:` payload, in order. */
  push(data: string): void;
  /** The output so far: complete after the stream's end, what arrived when it was cut. */
  messages(): OutputMessage[];
}

/**
 * One wire format of answers: a success body and the events of its stream. The edge reads every
 * answer it relays (native or translated) through the format the upstream spoke.
 */
export interface WireFormat {
  /** For logs and spans only; the edge never branches on it. */
  readonly name: string;
  /** The usage a success body reports, or null when it reports none. */
  usageOfBody(body: unknown): CanonicalUsage | null;
  /** A meter for one stream. `clientWantsUsage`: false to hide a usage-only event the gateway asked for. */
  meter(clientWantsUsage: boolean): StreamMeter;
  /** The generated text in one event payload (empty for other events): a cut stream is charged on it. */
  outputText(data: string): string;
  /** Whether a payload is the vendor's own error event (already in the client's format, it ends the stream). */
  isErrorEvent(data: string): boolean;
  /** The whole SSE event (framed, `\n\n`-terminated) ending a stream that broke after `events` payloads. */
  failEvent(message: string, events: number): string;
  /** Model and finish reasons of a success body. */
  facts(body: Readonly<Record<string, unknown>>): ResponseFacts;
  /** What a success body answered, for content capture; null when it holds no generated content. */
  outputMessages(body: Readonly<Record<string, unknown>>): OutputMessage[] | null;
  transcript(): StreamTranscript;
  /**
   * For an upstream whose streams are not SSE (a binary event stream): a decoder per stream, which
   * the edge runs the upstream's bytes through before relaying. Absent: the stream is SSE.
   */
  streamDecoder?(): StreamDecoder;
  /**
   * For a vendor that refuses some requests inside a stream it has begun (OpenAI's Responses API
   * fails a prompt too long for the window with `response.failed`): what one payload of a stream's
   * opening says. `wait`: the opening goes on, nothing generated yet; `too_long`: the request is
   * refused as too long for the model's context window; `go`: the stream is under way. Absent:
   * the vendor refuses before its stream begins (an error answer, see `contextExceeded`).
   */
  opening?(data: string): StreamOpening;
}

/** What a payload of a stream's opening says (`WireFormat.opening`). */
export type StreamOpening = 'wait' | 'too_long' | 'go';

/** An upstream stream's own framing -> SSE text (whole events), read by read. */
export interface StreamDecoder {
  /** The next bytes read: the SSE events of the frames they completed ('' for none). Throws on a corrupt frame. */
  push(bytes: Uint8Array): string;
  /** The upstream ended: throws when it ended inside a frame. */
  end(): void;
}

/** A client body prepared for a provider of the same wire format. */
export interface PreparedRequest {
  readonly body: JsonObject;
  /** Whether the client itself asked for the usage event; if not, the meter hides it. */
  readonly clientWantsUsage: boolean;
}

/**
 * A provider's own endpoint for a client API of its wire format: the body passes through but for
 * what `prepare` changes (the model, a usage option), and the answer passes back byte for byte.
 */
export interface NativeRoute {
  /** Upstream path (with any query) relative to the provider's base URL. */
  path(upstreamModel: string, stream: boolean): string;
  /** How its answers read; null for an endpoint whose answer is no generation (token counts). */
  readonly wire: WireFormat | null;
  /**
   * One raw stream event as the client would have seen it without the usage the gateway asked for
   * on its behalf (chunks then carry `"usage":null`); absent when the route never asks.
   */
  withoutUnaskedUsage?(raw: string): string;
  /**
   * `client`: the client's request headers, for a route whose vendor takes in the body what the
   * client's SDK sends as a header (Bedrock's `anthropic_beta`).
   */
  prepare(body: JsonObject, upstreamModel: string, client?: HeaderMap): PreparedRequest;
  /** The usage to charge from a success body; null when there is none (a free endpoint, or none reported). */
  usageOfBody(body: unknown): CanonicalUsage | null;
  /**
   * The one top-level member of a success body `usageOfBody` reads (null: none), so the edge parses
   * only that member of an answer it passes through byte for byte.
   */
  readonly usageMember: string | null;
}

/**
 * A client API a provider serves through a translator of its own, outside the hub: embeddings,
 * which the hub (chat) cannot carry, reaching a vendor whose embeddings API is not the client's.
 * One request may take several upstream calls (a vendor that embeds one text per call, or fewer
 * texts than the client sent): the edge sends them within one attempt, at most `concurrency` at
 * once, and hands the answers back in the order of `calls` once every one succeeded. The first
 * call that fails is the attempt's answer, as a single call's failure would be.
 */
export interface DirectRoute {
  /** For logs and tests only; nothing branches on it. */
  readonly name: string;
  /**
   * The client's body -> the upstream calls (paths relative to the provider's, before its
   * endpoint places them). Throws `invalid_request` (GatewayError) naming the field for what the
   * vendor cannot take; records what it carried in another shape or dropped on `adjust`.
   */
  plan(body: JsonObject, upstreamModel: string, adjust: Adjustments): DirectPlan;
}

/** One request's upstream calls, and how their answers become the client's. */
export interface DirectPlan {
  /** At least one. */
  readonly calls: readonly UpstreamRequest[];
  /** How many of them may be in flight at once (the vendor's rate limits count calls). */
  readonly concurrency: number;
  /**
   * The successful answers, in the order of `calls` -> the client's body and the usage to charge.
   * Throws `upstream_error` (GatewayError) for an answer of another shape.
   */
  answer(answers: readonly DirectAnswer[], ctx: ClientContext): DirectReply;
}

/** One call's success as it came: its headers (some vendors count usage there) and its parsed body. */
export interface DirectAnswer {
  readonly headers: HeaderMap;
  readonly body: unknown;
}

export interface DirectReply {
  readonly body: JsonObject;
  /** From the vendor's own counts; null when it reported none (the edge then estimates). */
  readonly usage: CanonicalUsage | null;
}

/** A client API, named as in the capability table: what a provider type serves natively or by translation. */
export type ClientApiName =
  | 'chat'
  | 'completions'
  | 'responses'
  | 'embeddings'
  | 'messages'
  | 'count_tokens'
  | 'generate_content'
  | 'count_content_tokens';

/** Where a client API's SDKs put the gateway key. */
export type KeySource = 'authorization' | 'x-api-key' | 'x-goog-api-key' | 'key-query';

/** The client error shapes (`#libs/protocol` renders them). */
export type ErrorShape = ErrorFormat;

/** What a client request asks for, wherever its API puts it (the body, or the path). */
export interface RequestTarget {
  /** The model as the client named it (not yet checked: any JSON value). */
  readonly model: unknown;
  readonly stream: boolean;
}

/** The parts of a client request a client API reads besides its body. */
export interface ClientRequestParts {
  /** Route parameters: `model`, and `action` for APIs that name it after the model (`{model}:{action}`). */
  readonly params: Readonly<Record<string, string | undefined>>;
  /** The query string's parameters (`alt=sse`). */
  readonly query: Readonly<Record<string, string | undefined>>;
}

/**
 * One API clients speak (a vendor SDK's endpoint): how its requests are checked and read, which
 * shape its errors take, and the translator that carries it through the hub to other formats.
 */
export interface ClientApi {
  readonly name: ClientApiName;
  /** The route, also the log row's `endpoint`. */
  readonly route: string;
  readonly errors: ErrorShape;
  /** Where its SDKs send the key, in the order they are looked at. */
  readonly keySources: readonly KeySource[];
  /** Whether it can stream at all. */
  readonly streams: boolean;
  /** The model and stream flag of a request whose body is a JSON object. */
  target(body: JsonObject, parts: ClientRequestParts): RequestTarget;
  /** What is wrong with the body before any provider sees it, or null. */
  validate(body: JsonObject, parts: ClientRequestParts): GatewayError | null;
  /** The translator for providers of other formats; null when only native providers serve it. */
  readonly hub: ClientFormat | null;
  /** Whether a translated stream carries the usage event (chat clients choose; others always do). */
  includeUsage(body: JsonObject): boolean;
  /** What the client asked, read from its body, for content capture. */
  inputContent(body: JsonObject): InputContent;
  /** Token-count APIs: how a body is counted here for a model no provider serves natively. */
  readonly localCount?: LocalCount;
  /**
   * The agent session the request belongs to, as this API's clients name it (a header, a body
   * field), so its turns stay on the provider holding their prompt cache; undefined when it names
   * none. Returned as sent: the edge bounds and hashes it, and never records it.
   */
  session?(body: JsonObject, headers: HeaderMap): string | undefined;
  /** The API's WebSocket wire, for an API its clients also use over a socket (session-protocol.ts). */
  readonly socket?: SessionProtocol;
}

export interface LocalCount {
  /** The body's prompt tokens with the family's tokenizer; throws the 400 the translation would. */
  count(body: JsonObject, target: RequestTarget, family: TokenizerFamily): Promise<number>;
  /** The API's answer for that count. */
  answer(tokens: number): JsonObject;
}

export interface InputContent {
  /** Instructions the format takes apart from the messages; else null. */
  readonly system: readonly MessagePart[] | null;
  readonly messages: readonly InputMessage[];
}

/** Headers sent to a provider: its auth, plus the client's vendor headers that apply to it. */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A provider's configuration entry, as an adapter places requests by it: its folder reads its own
 * settings off it (a deployment, a project and location), which the configuration's schema checked
 * for its type.
 */
export type ProviderSettings = ProviderConfig;

/**
 * Where one provider takes requests, for a type whose URLs depend on its settings (a deployment,
 * an api-version). Built once per provider (`ProviderAdapter.endpoint`).
 */
export interface ProviderEndpoint {
  /** The model a request's body (and any path built from it) names for a served upstream model. */
  model(upstreamModel: string): string;
  /**
   * The provider's path (with its query) for one the format built, relative to the base URL:
   * `path` is what a `NativeRoute` or `ProviderFormat.fromHub` gave, `upstreamModel` the
   * served model's upstream ID (before `model`).
   */
  path(path: string, upstreamModel: string): string;
}

/**
 * The adapters of a type that hosts models of several wire formats (a cloud serving several
 * publishers' models: Gemini and Claude on one API), chosen per model.
 */
export interface ModelAdapters {
  /** The adapter one upstream model's requests are read through, by its upstream ID. */
  of(upstreamModel: string): ProviderAdapter;
  /** Every adapter `of` answers, by a label for people (the capability table has a column each). */
  readonly byLabel: Readonly<Record<string, ProviderAdapter>>;
}

/** Everything the gateway knows about one provider type. */
export interface ProviderAdapter {
  /** The client APIs its own API serves in their format, and how. */
  readonly native: Partial<Record<ClientApiName, NativeRoute>>;
  /**
   * Client APIs it cannot serve: embeddings where no direct route exists (they have no hub), and
   * the text APIs for an embedding model; every other one is translated.
   */
  readonly none: readonly ClientApiName[];
  /** The client APIs it serves by a translator of its own rather than the hub (`DirectRoute`). */
  readonly direct?: Partial<Record<ClientApiName, DirectRoute>>;
  /** The format the hub reaches it through, for one provider (a type may have several profiles). */
  hubFormat(settings: ProviderSettings): ProviderFormat;
  /**
   * Its auth and content headers, plus those of the client's that tune this vendor's API when the
   * client sent them (a version, a beta flag). Nothing else of the client's passes.
   */
  upstreamHeaders(apiKey: string | undefined, client: HeaderMap): Record<string, string>;
  /**
   * Whether an error answer other than 401/403 says the provider refused the gateway's own key
   * (a vendor that answers a bad key with 400): the client must not read it as its own error.
   */
  refusesCredentials?(status: number, body: Buffer): boolean;
  /**
   * Why the provider refused the gateway's credentials (a 401/403), in its own words, short and
   * bounded, for the provider's down reason in /routes and the log (a cloud's signature or key
   * error); null when the answer says nothing more than its status.
   */
  refusalReason?(status: number, headers: HeaderMap, body: Buffer): string | null;
  /**
   * Where a provider of this type takes requests, when its settings decide (absent: the paths
   * the routes and formats give, relative to `base_url`, and the upstream model as is).
   */
  endpoint?(settings: ProviderSettings): ProviderEndpoint;
  /**
   * The absolute URL the router's probe lists models at, for a type whose model list is not
   * under `base_url` (a cloud whose control plane is another endpoint than its inference).
   * Absent: `probe_path` under `base_url`, placed by `endpoint`.
   */
  probeUrl?(settings: ProviderSettings): string;
  /**
   * An error answer this vendor gives that the gateway renders itself, in the client's shape
   * (a content filter's refusal, with its category); null for any other answer. A request
   * error of the client's own: never a provider failure.
   */
  clientError?(status: number, body: Buffer): GatewayError | null;
  /**
   * Whether an error answer refuses the request as too long for the model's context window, in
   * this vendor's code or words: the gateway may then fall back to a model with a larger window
   * (docs/routing.md, "Fallbacks"). Absent: the vendor's refusal is not known, and never falls back.
   */
  contextExceeded?(status: number, body: Buffer): boolean;
  /**
   * Where it takes realtime sessions (a WebSocket relayed both ways, `src/realtime.ts`): absent
   * for a type that serves none.
   */
  readonly realtime?: RealtimeRoute;
  /**
   * A type whose models speak different wire formats: each model's adapter, read in place of
   * this one for its requests (this one's own members then serve what names no model: the
   * probe's headers and URL).
   */
  readonly models?: ModelAdapters;
}

/** A model of the catalog as a Models API shows it. */
export interface ModelCard {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly owned_by: string;
}

/** One vendor's Models API (`GET .../models`, `GET .../models/{id}`): the whole list on one page. */
export interface ModelsApi {
  readonly keySources: readonly KeySource[];
  list(models: readonly ModelCard[]): object;
  one(model: ModelCard): object;
}
