import { parseArgs } from 'node:util';
import { type Kysely } from 'kysely';
import { type Database, listLogPartitions, rebuildUsageRollups } from '#libs/db';

export const USAGE_REBUILD_USAGE =
  'usage: npm run usage:rebuild -- --from 2026-11-01T00:00:00Z [--to 2026-11-02T00:00:00Z] [--force]';

export interface UsageRebuildArgs {
  readonly from: Date;
  readonly to: Date;
  /** Rebuild hours before the oldest log partition too (they would be emptied). */
  readonly force: boolean;
}

export interface UsageRebuildDeps {
  readonly db: Kysely<Database>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly now?: () => Date;
}

/** Exit codes: 0 rebuilt, 1 the database refused, 2 bad arguments. */
export type UsageRebuildExit = 0 | 1 | 2;

class UsageError extends Error {}

function instant(name: string, value: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name} "${value}" is not a date or an ISO instant`);
  return d;
}

export function parseUsageRebuildArgs(argv: readonly string[], now: Date): UsageRebuildArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.from === undefined) throw new UsageError('--from is required');
  const from = instant('from', values.from);
  const to = values.to === undefined ? now : instant('to', values.to);
  if (from >= to) throw new UsageError('--from must be before --to');
  return { from, to, force: values.force === true };
}

/**
 * Recomputes the hourly usage rollups of [from, to) (widened to whole hours) from request_logs,
 * one UTC day per transaction. Hours older than the oldest log partition are left alone unless
 * --force: their logs were dropped by retention, and a rebuild would empty rollups kept forever.
 */
export async function usageRebuildCommand(
  argv: readonly string[],
  deps: UsageRebuildDeps,
): Promise<UsageRebuildExit> {
  let args: UsageRebuildArgs;
  try {
    args = parseUsageRebuildArgs(argv, deps.now?.() ?? new Date());
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    deps.err(`usage:rebuild: ${err.message}`);
    deps.err(USAGE_REBUILD_USAGE);
    return 2;
  }
  try {
    let from = args.from;
    const oldest = (await listLogPartitions(deps.db))[0];
    if (!args.force && oldest && from < oldest.from) {
      deps.out(
        `logs before ${oldest.from.toISOString()} were dropped by retention: rebuilding from there (--force to empty older hours)`,
      );
      from = oldest.from;
    }
    if (from >= args.to) {
      deps.out('nothing to rebuild');
      return 0;
    }
    const started = Date.now();
    const { hours, rows } = await rebuildUsageRollups(deps.db, from, args.to, (day) =>
      deps.out(`${day.from.toISOString()} .. ${day.to.toISOString()}: ${day.rows} rollup rows`),
    );
    deps.out(`rebuilt ${hours} hours (${rows} rollup rows) in ${Date.now() - started} ms`);
    return 0;
  } catch (err) {
    deps.err(`usage:rebuild: ${(err as Error).message}`);
    return 1;
  }
}
