import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { sendError } from './send-error.js';

/**
 * Bounds the memory large request bodies take: each costs about three times its size in heap
 * while parsed and translated, so an edge admits large bodies (declared over `thresholdBytes`)
 * only while their declared bytes in flight stay within `budgetBytes`, and answers the rest 503
 * before reading them. Small bodies are never counted: a busy edge's many small requests must not
 * be refused for memory they do not take. A chunked body declares no length: it is bounded by
 * body_limit_bytes alone.
 */
export class LargeBodyBudget {
  private inFlight = 0;

  constructor(
    private readonly thresholdBytes: number,
    private readonly budgetBytes: number,
  ) {}

  get bytesInFlight(): number {
    return this.inFlight;
  }

  /** The bytes to hold for a body of this declared length (0: not large), or null when over budget. */
  take(declared: number): number | null {
    if (!Number.isSafeInteger(declared) || declared <= this.thresholdBytes) return 0;
    // One body larger than the whole budget still goes through alone (the body limit caps it).
    if (this.inFlight > 0 && this.inFlight + declared > this.budgetBytes) return null;
    this.inFlight += declared;
    return declared;
  }

  give(bytes: number): void {
    this.inFlight -= bytes;
  }

  install(fastify: FastifyInstance): void {
    const held = new WeakMap<FastifyRequest, number>();
    const release = (req: FastifyRequest, done: () => void): void => {
      const bytes = held.get(req);
      if (bytes !== undefined) {
        held.delete(req);
        this.give(bytes);
      }
      done();
    };
    fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const bytes = this.take(Number(req.headers['content-length']));
      if (bytes === null) {
        const busy = new GatewayError(
          'server_busy',
          'The gateway is handling too many large requests; retry shortly.',
          { retryAfterSeconds: 1 },
        );
        return sendError(reply, busy);
      }
      if (bytes > 0) held.set(req, bytes);
      done();
    });
    // Sent, or given up by the client: either way the body's memory is free again.
    fastify.addHook('onResponse', (req: FastifyRequest, _reply: FastifyReply, done: () => void) =>
      release(req, done),
    );
    fastify.addHook('onRequestAbort', (req: FastifyRequest, done: () => void) => release(req, done));
  }
}
