import { type Adjustments } from './adjustments.js';
import { type RequestTarget, type WireFormat } from './adapter.js';
import { type ChatChunk, type ChatCompletion, type ChatRequest } from './chat.js';
import { type JsonObject } from './types.js';

/**
 * The contracts between the edge and the translators. Translators are pure: no I/O, no
 * framework types, no clocks or random ids they are not given. They throw `GatewayError`
 * (`#libs/protocol`) with code `invalid_request` for what the target cannot express, with a
 * message naming the field, and `upstream_error` for a malformed upstream body.
 */

/** One upstream Server-Sent Event, already split and parsed out of the byte stream. */
export interface SseEvent {
  /** The `event:` field, or null when the event had none (OpenAI chat streams). */
  readonly event: string | null;
  readonly data: string;
}

/** One event to write to the client; the edge frames it as `event: ...\ndata: ...\n\n`. */
export interface SseFrame {
  /** Omitted for formats without named events (chat, completions). */
  readonly event?: string;
  readonly data: string;
}

/** A stateful, synchronous stream translator: each input gives zero or more outputs. */
export interface StreamTransform<I, O> {
  push(input: I): O[];
  /** The input ended normally; flush whatever closes the output (e.g. `[DONE]`, `message_stop`). */
  end(): O[];
}

/** What a client-side translator needs beyond the hub objects themselves. */
export interface ClientContext {
  /** The gateway's request id; used where the client format needs an id the hub lacks. */
  readonly requestId: string;
  /** The model id as the client named it (responses echo the client's model). */
  readonly model: string;
  /** Unix seconds, from the edge's clock. */
  readonly created: number;
  /**
   * Chat and completions clients: their `stream_options.include_usage` (both strip the usage
   * chunk otherwise); responses and messages always carry usage, whatever this says.
   */
  readonly includeUsage: boolean;
  /** The client's original body, for formats that echo request fields (responses). */
  readonly request: JsonObject;
}

export interface ClientStream extends StreamTransform<ChatChunk, SseFrame> {
  /** The upstream broke after the stream began: the client format's own error event(s). */
  fail(error: { readonly type: string; readonly message: string }): SseFrame[];
}

/** A format a client speaks (its SDK), translated through the hub when the provider differs. */
export interface ClientFormat {
  readonly name: string;
  /**
   * Request headers of the client's vendor that tune that vendor's API (`anthropic-beta`): a
   * translated request reaches another vendor, so they are dropped and recorded.
   */
  readonly vendorHeaders: readonly string[];
  /**
   * Client request body -> hub request (the body was already checked to be an object). What is
   * carried in another shape or dropped as a hint is recorded on `adjust` (untracked if omitted).
   * `target`: the model and stream flag, for APIs that carry them outside the body (in the path).
   */
  toHub(body: JsonObject, adjust?: Adjustments, target?: RequestTarget): ChatRequest;
  /** Hub completion -> the client format's response body. */
  fromHub(completion: ChatCompletion, ctx: ClientContext): JsonObject;
  /** Hub chunks -> the client format's events, in order, ending as its vendor ends them. */
  streamFromHub(ctx: ClientContext): ClientStream;
}

export interface UpstreamRequest {
  /** Relative to the provider's base URL. */
  readonly path: string;
  readonly body: JsonObject;
  /** Vendor headers besides auth and content-type (e.g. `anthropic-version`). */
  readonly headers: Readonly<Record<string, string>>;
}

/** A provider's wire format, reached from the hub. */
export interface ProviderFormat {
  /** For logs and tests only; nothing branches on it. */
  readonly name: string;
  /** How the upstream's answers (body and stream) read: usage, end of stream, content. */
  readonly wire: WireFormat;
  /** Hub request -> upstream request. Streams always ask the upstream for usage. */
  fromHub(req: ChatRequest, upstreamModel: string, adjust?: Adjustments): UpstreamRequest;
  /** Upstream success body -> hub completion (usage included). */
  toHub(body: unknown): ChatCompletion;
  /**
   * Upstream events -> hub chunks; the last chunk carries the usage (`choices: []`). An in-stream
   * upstream error (Anthropic's `error` event) or a stream cut off before its end makes `push` /
   * `end` throw `GatewayError('upstream_error')`; the edge then calls the client stream's `fail()`.
   */
  streamToHub(): StreamTransform<SseEvent, ChatChunk>;
  /** The human message inside an upstream error body, if it has one. */
  errorMessage(body: unknown): string | null;
}
