import { Readable } from 'node:stream';
import { type FastifyReply } from 'fastify';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const;

/** Who hears that the client hung up: the request's lifecycle. */
export interface SseOwner {
  clientGone(): void;
}

/**
 * The one place a stream is written to the client. `Readable.from` pulls the next piece only when
 * the socket drained the last one (backpressure); the owner hears when the client hangs up before
 * the end, so it can abort the upstream at once.
 */
export function sendSse(reply: FastifyReply, source: AsyncGenerator<string>, owner: SseOwner): void {
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) owner.clientGone();
  });
  void reply
    .code(200)
    .headers(SSE_HEADERS)
    .send(Readable.from(source, { objectMode: false }));
}

/** One frame as a client reads it: `event:` only for formats with named events. */
export function frameText(frame: { readonly event?: string; readonly data: string }): string {
  return frame.event === undefined
    ? `data: ${frame.data}\n\n`
    : `event: ${frame.event}\ndata: ${frame.data}\n\n`;
}
