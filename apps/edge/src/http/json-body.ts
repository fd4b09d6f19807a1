import { type FastifyInstance } from 'fastify';
import { GatewayError, type JsonBodyFault, MAX_JSON_DEPTH, parseJsonBody } from '#libs/protocol';

const BODY_FAULTS: Readonly<Record<JsonBodyFault, () => GatewayError>> = {
  empty: () => new GatewayError('invalid_json', 'The request body is empty; expected JSON.'),
  invalid: () => new GatewayError('invalid_json', 'We could not parse the JSON body of your request.'),
  too_deep: () =>
    new GatewayError('invalid_request', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`),
};

/**
 * The instance's one body parser, for the JSON and job routes and Nest's: JSON only (text/plain
 * finds no parser: 415), read whole within the body limit, parsed by us so errors come out in the
 * client's format, and refused when nested too deep before anything walks it. Upload routes
 * replace it in their own scope (upload-body.ts).
 */
export function installJsonParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    const parsed = parseJsonBody(body);
    if (parsed.ok) done(null, parsed.value);
    else done(BODY_FAULTS[parsed.fault](), undefined);
  });
}
