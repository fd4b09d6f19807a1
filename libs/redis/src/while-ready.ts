import { type RedisClient } from './client.js';

/**
 * Waits for `work`, a step only Redis can finish (a job's ack, a lease's release), while `client`
 * is connected. Resolves true once it settled; false without waiting when the client is not ready,
 * as soon as it closes or fails meanwhile, or after `maxMs` (a server that accepts and does not
 * answer). While Redis is unreachable a command waits out ioredis's reconnect attempts (up to
 * ~15 s with a retry limit, for good without one), so a stop that awaited it overran its budget.
 */
export async function settlesWhileReady(
  client: RedisClient,
  work: Promise<unknown>,
  maxMs: number,
): Promise<boolean> {
  work.catch(() => undefined); // left unheard if given up on
  if (client.status !== 'ready') return false;
  let giveUp = (): void => undefined;
  const lost = new Promise<boolean>((resolve) => (giveUp = () => resolve(false)));
  const timer = setTimeout(giveUp, maxMs);
  client.once('close', giveUp).once('error', giveUp);
  try {
    return await Promise.race([work.then(() => true), lost]);
  } finally {
    clearTimeout(timer);
    client.off('close', giveUp).off('error', giveUp);
  }
}
