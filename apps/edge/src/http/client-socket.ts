import { type ClientSocket } from './endpoint-kinds.js';

/**
 * What the edge uses of the WebSocket library's socket (`ws`, under `@fastify/websocket`), so a
 * session depends on `ClientSocket` alone and tests can give it any socket.
 */
export interface LibrarySocket {
  readonly bufferedAmount: number;
  send(data: string, cb?: (err?: Error) => void): void;
  close(code: number, reason: string): void;
  on(event: 'message', listener: (data: Buffer, binary: boolean) => void): unknown;
  on(event: 'close', listener: (code: number) => void): unknown;
}

/** The library's socket as a session sees it. */
export function clientSocket(socket: LibrarySocket): ClientSocket {
  return {
    get bufferedBytes() {
      return socket.bufferedAmount;
    },
    // ws calls back with an error rather than throwing on a closed socket: never an exception here.
    sendText: (text, sent) => socket.send(text, sent === undefined ? ignoreError : () => sent()),
    close: (code, reason) => socket.close(code, reason),
    onMessage: (listener) => void socket.on('message', listener),
    onClose: (listener) => void socket.on('close', listener),
  };
}

/** A send to a socket that closed meanwhile: the session hears of the close itself. */
const ignoreError = (): void => undefined;
