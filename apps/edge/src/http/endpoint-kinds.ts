import { type Readable } from 'node:stream';
import { type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The kinds of client endpoint the edge serves (docs/architecture.md, "Endpoint kinds"). Each
 * kind fixes its method, how its body is read and what its handler is given, so a route of one
 * kind can only be served by a handler of that kind: the handlers' signatures differ in what
 * they take and return, and a route is built only through its kind's constructor below.
 *
 * - `json`: one JSON body, one answer (or a stream) on the reply: every model API today.
 * - `upload`: a multipart or binary body, handed over as a bounded stream, never parsed whole.
 * - `websocket`: a GET upgraded to a socket; one session, many requests over it.
 * - `job`: a JSON body accepted now and answered with the job as accepted; its work is finished
 *   later, away from the client's connection.
 */
export type EndpointKind = 'json' | 'upload' | 'websocket' | 'job';

/** A JSON request/reply handler: answers on the reply, a body or a stream. */
export type JsonServe<S> = (services: S, req: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** An upload handler: reads the body from `body.stream` (which fails past the body limit) and answers. */
export type UploadServe<S> = (
  services: S,
  req: FastifyRequest,
  body: UploadBody,
  reply: FastifyReply,
) => Promise<void>;

/**
 * A WebSocket session: runs from the upgrade until the socket closes. The handshake was already
 * admitted (`SessionRoute.handshake`); each request the session carries is owned by the
 * session's `RequestOwner` (pipeline/request-owner.ts).
 */
export type SessionServe<S> = (services: S, req: FastifyRequest, socket: ClientSocket) => Promise<void>;

/**
 * Admits a WebSocket handshake before the upgrade: a throw is answered as an HTTP error in the
 * client's shape, and no socket is opened.
 */
export type HandshakeCheck<S> = (services: S, req: FastifyRequest) => Promise<void>;

/** A job handler: accepts the job (queued, stored) and says so; it never writes the reply. */
export type JobServe<S> = (services: S, req: FastifyRequest) => Promise<JobAccepted>;

/** What the client is told when its job is accepted: the job as it stands (its id, its status). */
export interface JobAccepted {
  readonly status: 200 | 201 | 202;
  readonly body: object;
}

/** An upload's body: its media type and its bytes, as they arrive. */
export interface UploadBody {
  /** The media type without parameters, lower case (`multipart/form-data`). */
  readonly mediaType: string;
  /** The whole `content-type` header: a multipart reader needs its boundary. */
  readonly contentType: string;
  /** The declared length, or null for a chunked body. */
  readonly declaredBytes: number | null;
  /** The body's bytes; fails with `request_too_large` once more than the route's body limit came. */
  readonly stream: Readable;
}

/** A client's WebSocket as a session sees it, whatever library serves it. */
export interface ClientSocket {
  /** Bytes queued and not yet written to the network: what a session's backpressure reads. */
  readonly bufferedBytes: number;
  /** `sent`: called once the text left for the network (or failed to): where `bufferedBytes` falls. */
  sendText(text: string, sent?: () => void): void;
  /** Closes with a WebSocket close code (1000 normal, 1008 policy, 1011 internal error). */
  close(code: number, reason: string): void;
  onMessage(listener: (data: Buffer, binary: boolean) => void): void;
  onClose(listener: (code: number) => void): void;
}

interface RouteOf<K extends EndpointKind, M extends 'POST' | 'GET'> {
  readonly kind: K;
  readonly method: M;
  readonly url: string;
}

export interface JsonRoute<S> extends RouteOf<'json', 'POST'> {
  readonly serve: JsonServe<S>;
}

export interface UploadRoute<S> extends RouteOf<'upload', 'POST'> {
  /** The media types the route reads (`multipart/form-data`, `application/octet-stream`); others get 415. */
  readonly accepts: readonly string[];
  readonly serve: UploadServe<S>;
}

export interface SessionRoute<S> extends RouteOf<'websocket', 'GET'> {
  readonly handshake: HandshakeCheck<S>;
  readonly serve: SessionServe<S>;
}

export interface JobRoute<S> extends RouteOf<'job', 'POST'> {
  readonly serve: JobServe<S>;
}

/** A route of any kind, served with the services `S`. */
export type EdgeRoute<S> = JsonRoute<S> | UploadRoute<S> | SessionRoute<S> | JobRoute<S>;

export const jsonRoute = <S>(url: string, serve: JsonServe<S>): JsonRoute<S> => ({
  kind: 'json',
  method: 'POST',
  url,
  serve,
});

export const uploadRoute = <S>(
  url: string,
  accepts: readonly string[],
  serve: UploadServe<S>,
): UploadRoute<S> => ({ kind: 'upload', method: 'POST', url, accepts, serve });

export const sessionRoute = <S>(
  url: string,
  handshake: HandshakeCheck<S>,
  serve: SessionServe<S>,
): SessionRoute<S> => ({ kind: 'websocket', method: 'GET', url, handshake, serve });

export const jobRoute = <S>(url: string, serve: JobServe<S>): JobRoute<S> => ({
  kind: 'job',
  method: 'POST',
  url,
  serve,
});
