import { type Kysely } from 'kysely';
import { type ConfigVersionRow, type ConfigVersionSource, type Database } from '#libs/db';

export class ConfigConflictError extends Error {
  override readonly name = 'ConfigConflictError';
  constructor(
    readonly baseVersion: number,
    readonly headVersion: number | null,
  ) {
    super(
      `the configuration changed since version ${baseVersion} (now ${headVersion ?? 'unknown'}): ` +
        'reload it and apply your change again',
    );
  }
}

export interface NewConfigVersion {
  /** The version the change was made on; 0 for the first one. */
  readonly base: number;
  readonly document: unknown;
  readonly source: ConfigVersionSource;
  readonly author: string;
  readonly comment?: string | null;
}

/** The newest version number, 0 when the store is empty: one index lookup, polled every second. */
export async function headVersion(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('config_versions')
    .select((eb) => eb.fn.max('version').as('v'))
    .executeTakeFirst();
  return row?.v ?? 0;
}

export async function readVersion(db: Kysely<Database>, version: number): Promise<ConfigVersionRow | null> {
  return (
    (await db.selectFrom('config_versions').selectAll().where('version', '=', version).executeTakeFirst()) ??
    null
  );
}

export async function readHead(db: Kysely<Database>): Promise<ConfigVersionRow | null> {
  return (
    (await db
      .selectFrom('config_versions')
      .selectAll()
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst()) ?? null
  );
}

/**
 * The newest versions first, without their documents; only those older than `before` when given
 * (keyset on the primary key: a deep page reads what the first one does).
 */
export async function listVersions(
  db: Kysely<Database>,
  limit: number,
  before?: number,
): Promise<Omit<ConfigVersionRow, 'document'>[]> {
  let q = db
    .selectFrom('config_versions')
    .select(['version', 'source', 'author', 'comment', 'created_at'])
    .orderBy('version', 'desc')
    .limit(limit);
  if (before !== undefined) q = q.where('version', '<', before);
  return q.execute();
}

const UNIQUE_VIOLATION = '23505';

/**
 * Appends version `base + 1`. Two changes made on the same version race for that one primary
 * key: the loser gets ConfigConflictError, so no edit silently overwrites another.
 */
export async function appendVersion(db: Kysely<Database>, change: NewConfigVersion): Promise<number> {
  const version = change.base + 1;
  // A base ahead of the head would leave a gap; behind it, the insert below collides.
  const head = await headVersion(db);
  if (change.base > head) throw new ConfigConflictError(change.base, head);
  try {
    await db
      .insertInto('config_versions')
      .values({
        version,
        document: JSON.stringify(change.document),
        source: change.source,
        author: change.author,
        comment: change.comment ?? null,
      })
      .execute();
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION)
      throw new ConfigConflictError(change.base, await headVersion(db).catch(() => null));
    throw err;
  }
  return version;
}

/** Writes the file's document as version 1 unless some version exists (several apps may race at boot). */
export async function seedIfEmpty(db: Kysely<Database>, document: unknown, author: string): Promise<boolean> {
  const inserted = await db
    .insertInto('config_versions')
    .values({ version: 1, document: JSON.stringify(document), source: 'seed', author, comment: 'first boot' })
    .onConflict((oc) => oc.column('version').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}
