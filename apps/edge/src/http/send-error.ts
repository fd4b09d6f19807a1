import { type FastifyReply } from 'fastify';
import { clientFormatOf, type GatewayError, renderError } from '#libs/protocol';

/** The one place an error becomes a response; the request id header is set by the onRequest hook. */
export function sendError(reply: FastifyReply, err: GatewayError): void {
  const rendered = renderError(err, clientFormatOf(reply.request.url));
  void reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
}
