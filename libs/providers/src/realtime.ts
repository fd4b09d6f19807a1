import { type CanonicalUsage } from './types.js';
import { type ErrorShape, type HeaderMap, type KeySource, type ProviderSettings } from './adapter.js';

/**
 * The contracts of realtime sessions (a WebSocket the client keeps open for a conversation, audio
 * and text both ways): what the edge reads of the events it relays, and where a provider takes
 * its sessions. The edge relays every frame untouched but for a model it renames, and reads only
 * what it must: each response's start and end (its usage, charged at the model's prices) and a
 * change of model. The one protocol clients speak is `REALTIME_PROTOCOL` (registry.ts).
 */

/** Where one provider type takes realtime sessions (`ProviderAdapter.realtime`). */
export interface RealtimeRoute {
  /**
   * The session's path and query, relative to the provider's base URL (the edge swaps its
   * `http(s):` for `ws(s):`), for one served model's upstream ID and the provider's settings.
   * Throws for a model the provider's settings cannot place (a deployment missing).
   */
  path(upstreamModel: string, settings: ProviderSettings): string;
  /**
   * The handshake's headers: the provider's auth with its static key (none when the provider's
   * credential adds its own), and the client's headers that tune the vendor's API (a beta flag).
   */
  headers(apiKey: string | undefined, client: HeaderMap): Record<string, string>;
  /** The model a session's events name for a served upstream model (a deployment); the same by default. */
  eventModel?(upstreamModel: string, settings: ProviderSettings): string;
}

/** What a client event asks that the edge must know of before it is relayed. */
export type RealtimeClientEvent =
  /** A session update naming a model (the session's model changes). */
  | { readonly kind: 'model'; readonly model: unknown; readonly eventId: string | null }
  /** The client asks for a response. */
  | { readonly kind: 'response'; readonly eventId: string | null }
  /** Anything else: relayed as it is (the provider validates it). */
  | { readonly kind: 'other' };

/** What an upstream event says of the session's responses. */
export type RealtimeServerEvent =
  | { readonly kind: 'response_started'; readonly responseId: string | null }
  /** A response ended (completed, cancelled, failed...): its usage, null when it reported none. */
  | {
      readonly kind: 'response_done';
      readonly responseId: string | null;
      readonly status: string | null;
      readonly usage: CanonicalUsage | null;
    }
  /** Generated text (or an audio transcript's text): a response cut before its end is estimated on it. */
  | { readonly kind: 'output'; readonly text: string }
  | { readonly kind: 'other' };

/** An error as the realtime protocol's `error` event carries it. */
export interface RealtimeError {
  /** The error's type (`invalid_request_error`, `server_error`, `insufficient_quota`...). */
  readonly type: string;
  readonly code: string | null;
  readonly message: string;
  readonly param?: string | null;
}

/** The realtime protocol clients speak, as the edge reads and writes it. */
export interface RealtimeProtocol {
  /** The route, also the log rows' `endpoint`. */
  readonly route: string;
  /** The shape of its errors: a refused handshake is an HTTP error of this shape, later ones `errorEvent`s. */
  readonly errors: ErrorShape;
  /** Where its SDKs send the key on a server (a browser's is `keyOfSubprotocols`). */
  readonly keySources: readonly KeySource[];
  /** The key a browser's SDK sends among the offered subprotocols (it cannot set headers), or null. */
  keyOfSubprotocols(header: string | undefined): string | null;
  /** The model the handshake names (its query), not yet checked. */
  modelOf(query: Readonly<Record<string, string | undefined>>): unknown;
  /** One client text frame; parses only the events it must know (their type is read first). */
  clientEvent(text: string): RealtimeClientEvent;
  /** One upstream text frame; parses only the rare events (a response's start and end). */
  serverEvent(text: string): RealtimeServerEvent;
  /** A client event naming a model, with the model the provider knows instead (its upstream ID). */
  withModel(text: string, model: string): string;
  /** The event asking the provider to stop a response (the client left mid-response); null: the one in progress. */
  cancelEvent(responseId: string | null): string;
  /** The `error` event for an error, naming the client event it answers (null: none). */
  errorEvent(error: RealtimeError, clientEventId: string | null): string;
}
