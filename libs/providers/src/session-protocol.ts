import { type GatewayError } from '#libs/protocol';
import { type JsonObject } from './types.js';

/**
 * A client API served over a WebSocket session as well (`ClientApi.session` names the agent
 * session; this is the socket's wire): what the edge needs to read the client's events, answer
 * its errors and keep the conversation a continuation names, without knowing the format. The edge
 * owns the session (admission, limits, the conversation's bounds); the format owns every byte.
 */
export interface SessionProtocol {
  /** One text message from the client: a request to serve, or why it is not one. */
  readEvent(text: string): SessionEvent;
  /** The error event for `err`, as the client's SDK reads it. */
  errorEvent(err: SessionError | GatewayError): string;
  /** What the API calls a refusal only a session makes; `message` says why in the edge's words. */
  refusal(kind: SessionRefusal, message: string): SessionError;
  /**
   * The message the socket sends for one event of the API's SSE stream (its `data:` payload), or
   * null for one the socket does not carry (a stream terminator).
   */
  message(data: string): string | null;
  /**
   * The message for an answer that came whole rather than streamed (an upstream's refusal in the
   * API's error shape, with its HTTP status): the error event, or the final event for a success.
   */
  bodyEvent(status: number, body: string): string;
  /** An event of the stream that ends a response the conversation keeps: its id and output items. */
  answered(data: string): AnsweredResponse | null;
  /** The items a request adds to the conversation (its input as items) and the response it continues. */
  turn(body: JsonObject): Turn;
  /** The request the upstream is sent: `body` with the whole history as its input, no continuation id. */
  withHistory(body: JsonObject, history: readonly unknown[]): JsonObject;
}

/**
 * The refusals a session makes of its own:
 * - `unknown_previous`: a continuation of a response this connection does not hold;
 * - `conversation_full`: a continuation past the conversation's bound in items or bytes;
 * - `queue_full`: more requests waiting behind the one in flight than the session takes;
 * - `message_too_large`, `binary_message`: a message the session cannot read (the socket closes);
 * - `session_expired`: the session reached its longest duration (the socket closes);
 * - `key_revoked`: the session's key no longer works (the socket closes);
 * - `shutting_down`: the edge is stopping (the socket closes).
 */
export type SessionRefusal =
  | 'unknown_previous'
  | 'conversation_full'
  | 'queue_full'
  | 'message_too_large'
  | 'binary_message'
  | 'session_expired'
  | 'key_revoked'
  | 'shutting_down';

/** A client message read: a request body (the API's, streaming), or an error to answer. */
export type SessionEvent =
  | { readonly kind: 'request'; readonly body: JsonObject }
  | { readonly kind: 'refused'; readonly error: SessionError };

/** An error only a session has (no HTTP request carries it), in the API's own terms. */
export interface SessionError {
  readonly status: number;
  /** The API's error type and code, as its clients match them. */
  readonly type: string;
  readonly code: string;
  readonly message: string;
  readonly param: string | null;
}

export interface AnsweredResponse {
  readonly id: string;
  /** The output items, as the next request's input takes them. */
  readonly output: readonly unknown[];
}

export interface Turn {
  /** The response this request continues, or null for a new conversation. */
  readonly previous: string | null;
  /** The request's input as conversation items. */
  readonly items: readonly unknown[];
}
