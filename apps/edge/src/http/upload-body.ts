import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { type UploadBody } from './endpoint-kinds.js';

/**
 * Upload bodies (multipart files, audio, binary) are handed to their handler as a stream, never
 * read whole here: a file may be far larger than any JSON body, and a handler that stores it can
 * write it on as it comes. The bound is the route's body limit all the same: a declared length
 * over it is refused before a byte is read, and a chunked body fails its stream at the first byte
 * past it, so nothing past the limit is ever buffered.
 *
 * Why not `@fastify/multipart`: it pipes the raw request into its parser itself and bounds each
 * file and field, not the body, so the body limit would not hold; and its parser applies to the
 * whole instance, where JSON routes must keep refusing anything but JSON. A multipart reader
 * (issue 37's files) reads this bounded stream instead.
 */

/** The same words as Fastify's own 413, turned into the client's shape by the exception filter. */
export const bodyTooLarge = (): GatewayError =>
  new GatewayError('request_too_large', 'The request body is too large.');

/** A body as an upload handler gets it (an instance: the route's adapter tells it from any other body). */
export class ReceivedUpload implements UploadBody {
  constructor(
    readonly mediaType: string,
    readonly contentType: string,
    readonly declaredBytes: number | null,
    readonly stream: Readable,
  ) {}
}

/**
 * Content-type parsers for one upload route's scope: its media types, each handed over as a
 * bounded stream, and every other type refused with a 415 naming what the route takes. Call in an
 * encapsulated scope (`fastify.register`): the instance's JSON parser is removed there.
 */
export function installUploadParsers(scope: FastifyInstance, accepts: readonly string[]): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser([...accepts], (req: FastifyRequest, payload, done) => {
    const declared = declaredLength(req);
    const limit = req.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
    if (declared !== null && declared > limit) return done(bodyTooLarge(), undefined);
    const contentType = req.headers['content-type'] ?? '';
    const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
    done(null, new ReceivedUpload(mediaType, contentType, declared, boundedStream(payload, limit)));
  });
  const refusal = `This endpoint takes ${accepts.join(' or ')} bodies.`;
  scope.addContentTypeParser('*', (_req, _payload, done) =>
    done(new GatewayError('unsupported_media_type', refusal), undefined),
  );
}

/** The bytes of `payload`, failing with `request_too_large` once more than `limit` came. */
export function boundedStream(payload: Readable, limit: number): Readable {
  let seen = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) done(bodyTooLarge());
      else done(null, chunk);
    },
  });
  // A client that hangs up mid-body fails the handler's read instead of leaving it waiting.
  payload.once('error', (err) => bounded.destroy(err));
  return payload.pipe(bounded);
}

function declaredLength(req: FastifyRequest): number | null {
  const header = req.headers['content-length'];
  if (header === undefined) return null;
  const n = Number(header);
  return Number.isSafeInteger(n) ? n : null;
}
