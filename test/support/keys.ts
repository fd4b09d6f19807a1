import { type Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { type Database, findOrCreateUserByEmail, insertApiKey } from '#libs/db';

/** An active key in group `default` whose raw secret the test holds (the edge authenticates raw keys). */
export async function seedRawKey(
  db: Kysely<Database>,
  email = 'keys@example.com',
): Promise<{ raw: string; id: string; hash: string }> {
  const { user } = await findOrCreateUserByEmail(db, email, 0);
  const raw = generateApiKey();
  const row = await insertApiKey(db, {
    user_id: user.id,
    key_hash: hashApiKey(raw),
    display_prefix: displayPrefix(raw),
    group_name: 'default',
  });
  return { raw, id: row.id, hash: row.key_hash };
}

/**
 * The error `resolver` refuses `raw` with, polled until it does (an invalidation arrives by pub/sub,
 * under load later than any fixed sleep); null if it still accepts after `timeoutMs`.
 */
export async function refusal(
  resolver: { authenticate(raw: string): Promise<unknown> },
  raw: string,
  timeoutMs = 3_000,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const err = await resolver.authenticate(raw).then(
      () => null,
      (e: unknown) => e,
    );
    if (err !== null || Date.now() > deadline) return err;
    await new Promise((r) => setTimeout(r, 10));
  }
}
