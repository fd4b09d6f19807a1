import { type ServerResponse, STATUS_CODES } from 'node:http';
import { type Socket } from 'node:net';

/**
 * What went wrong when Node's HTTP parser refused a connection's bytes, before any request
 * exists: headers over `maxHeaderSize`, a request not received within `requestTimeout`, or bytes
 * that are not HTTP/1.1 (broken chunking, Content-Length with Transfer-Encoding, a duplicate
 * Content-Length, a bare LF, a NUL in a header...).
 */
export type ConnectionFault = 'header_too_large' | 'timeout' | 'malformed';

/** The fault to answer for a `clientError`, or null when the client is gone (nothing to say). */
export function connectionFaultOf(err: { readonly code?: string }): ConnectionFault | null {
  if (err.code === 'ECONNRESET') return null;
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'header_too_large';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'timeout';
  return 'malformed';
}

export const CONNECTION_FAULT_MESSAGES: Readonly<Record<ConnectionFault, string>> = {
  header_too_large: 'The request headers are too large.',
  timeout: 'The request was not received in time.',
  malformed: 'The request is not valid HTTP/1.1.',
};

/** An app's error body (its own shape) for a fault, and the status it goes with. */
export type ConnectionFaultRenderer = (fault: ConnectionFault) => {
  readonly status: number;
  readonly body: string;
};

/** Node's socket state: the response being written on it, if any. */
interface HttpSocket extends Socket {
  readonly _httpMessage?: ServerResponse | null;
}

/**
 * A `clientErrorHandler` for Fastify (Node's 'clientError'): answers in the app's own error shape
 * with a request id (a fresh one when no request exists yet) instead of Fastify's bare default,
 * then closes the connection, which is out of step. Like Node it writes nothing once a response
 * has begun on the socket: the bytes would land inside that response.
 */
export function answerConnectionFaults(
  render: ConnectionFaultRenderer,
  newRequestId: () => string,
): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    const fault = connectionFaultOf(err);
    const current = (socket as HttpSocket)._httpMessage;
    if (fault === null || socket.destroyed || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body } = render(fault);
    // A body that breaks mid-way (chunking) has a request, and this answer takes its response's place.
    const requestId = current?.getHeader('x-request-id') ?? newRequestId();
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${String(requestId)}`,
      'connection: close',
    ];
    // Ended, then closed once written: a close right after the write could discard it.
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  };
}
