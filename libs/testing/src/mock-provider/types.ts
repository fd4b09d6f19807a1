import type { IncomingHttpHeaders } from 'node:http';
import type { MockBehaviour, MockBehaviourPatch } from './behaviour.js';

export type Vendor = 'openai' | 'anthropic' | 'gemini';

/** A JSON object as parsed from a request body. */
export type JsonObject = Record<string, unknown>;

/** One request the mock received, as the upstream would have seen it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: string;
  /** Node's lower-cased header map. */
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body; `undefined` for bodiless requests, the raw text when it was not JSON. */
  readonly body: unknown;
  readonly receivedAt: number;
}

export interface MockStats {
  readonly total: number;
  /** Requests per path (control endpoints not counted). */
  readonly byPath: Readonly<Record<string, number>>;
}

/** What an endpoint decided to answer; the server does the I/O and the timing. */
export type EndpointReply = JsonReply | StreamReply;

export interface JsonReply {
  readonly kind: 'json';
  readonly status: number;
  readonly body: unknown;
}

export interface StreamReply {
  readonly kind: 'stream';
  /**
   * Serialized SSE text, one entry per write. The first entry is written after `ttftMs` (so it
   * carries the lifecycle preamble plus the first content), the next ones `chunkIntervalMs` apart.
   */
  readonly writes: readonly string[];
  /** When not SSE (Gemini without `alt=sse` streams a JSON array). */
  readonly contentType?: string;
  /** What `midStreamError` ends the stream with, when not the vendor's usual SSE error event. */
  readonly errorFrame?: string;
}

/**
 * Which vendor the mock plays on an OpenAI-style path: OpenAI itself under `/v1`, Perplexity at
 * the root (its real base URL has no `/v1`: citations and search results, usage on the last
 * chunk), an OpenAI-compatible server under `/compat/v1` (DeepSeek-style cache usage, no
 * Responses API).
 */
export type Flavour = 'openai' | 'perplexity' | 'compat';

export interface EndpointInput {
  readonly body: JsonObject;
  readonly flavour: Flavour;
  readonly behaviour: MockBehaviour;
  readonly headers: IncomingHttpHeaders;
  /** The query string (Gemini's `alt=sse`, `pageSize`). */
  readonly query: URLSearchParams;
}

export type EndpointHandler = (input: EndpointInput) => EndpointReply;

export interface Route {
  /** Whose auth, validation and error shapes apply. */
  vendor(headers: IncomingHttpHeaders): Vendor;
  readonly handle: EndpointHandler;
  /** Bodiless GETs skip JSON parsing. */
  readonly hasBody: boolean;
}

export interface MockProvider {
  /** Base address, e.g. `http://127.0.0.1:4010` (no trailing slash; OpenAI clients add `/v1`). */
  readonly url: string;
  readonly port: number;
  /** The current behaviour (a snapshot; change it with `setBehaviour`). */
  readonly behaviour: Readonly<MockBehaviour>;
  /** Received requests, oldest first, bounded by `requestLogSize`. */
  readonly requests: readonly RecordedRequest[];
  readonly stats: MockStats;
  setBehaviour(patch: MockBehaviourPatch): void;
  /** Restores the start-up behaviour and clears the request log and stats. */
  reset(): void;
  /** Stops listening and destroys open connections (hung requests included). */
  close(): Promise<void>;
}
