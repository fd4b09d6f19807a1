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

/** The client's end of a stream: the raw response, as the relay writes to it. */
export interface SseClient {
  /** false: the socket holds enough; wait for 'drain'. */
  write(text: string): boolean;
  end(): void;
  destroy(): void;
  /** 'close': the response is done or the client hung up (`writableFinished` tells which). */
  on(event: 'close' | 'drain', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/**
 * The one place a stream's response starts: status 200 and the SSE headers, set on the raw
 * response as Fastify sets a stream's (every header of the reply, with `setHeader`, so they leave
 * with the first bytes written), then the reply hijacked: the relay writes the raw response itself,
 * with no Readable nor pipe between. Fastify's onSend hooks do not run; the only one (the apps'
 * `connection` fix for body errors, libs/runtime http-server.ts) leaves a 200 stream alone.
 * Fastify still runs its onResponse hooks when the response finishes.
 */
export function openSse(reply: FastifyReply): SseClient {
  void reply.code(200).headers(SSE_HEADERS);
  const res = reply.raw;
  const headers = reply.getHeaders();
  for (const name in headers) res.setHeader(name, headers[name]!);
  void reply.hijack();
  return res;
}

/** One frame as a client reads it: `event:` only for formats with named events. */
export function frameText(frame: { readonly event?: string; readonly data: string }): string {
  return frame.event === undefined
    ? `data: ${frame.data}\n\n`
    : `event: ${frame.event}\ndata: ${frame.data}\n\n`;
}
