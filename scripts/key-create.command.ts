import { parseArgs } from 'node:util';
import { type Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { type Database, findOrCreateUserByEmail, insertApiKey } from '#libs/db';

export const KEY_CREATE_USAGE = `usage: npm run key:create -- --email you@example.com --group default [--name "my key"] [--expires-days N]`;

export interface KeyCreateArgs {
  readonly email: string;
  readonly group: string;
  readonly name: string;
  readonly expiresDays: number | null;
}

export interface KeyCreateDeps {
  readonly db: Kysely<Database>;
  readonly config: GatewayConfig;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly now?: () => Date;
}

/** Exit codes: 0 created, 1 the database refused, 2 bad arguments. */
export type KeyCreateExit = 0 | 1 | 2;

class UsageError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NANOS_PER_CREDIT = 1_000_000_000;

export function parseKeyCreateArgs(argv: readonly string[]): KeyCreateArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        email: { type: 'string' },
        group: { type: 'string' },
        name: { type: 'string' },
        'expires-days': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const email = values.email?.trim();
  if (!email) throw new UsageError('--email is required');
  if (!EMAIL.test(email)) throw new UsageError(`--email "${email}" is not an email address`);
  if (!values.group) throw new UsageError('--group is required');
  let expiresDays: number | null = null;
  if (values['expires-days'] !== undefined) {
    expiresDays = Number(values['expires-days']);
    if (!Number.isInteger(expiresDays) || expiresDays <= 0 || expiresDays > 36_500)
      throw new UsageError(
        `--expires-days must be a whole number of days (1-36500), got "${values['expires-days']}"`,
      );
  }
  return { email, group: values.group, name: values.name?.trim() ?? '', expiresDays };
}

/** Why the database refused, in words that tell the operator what to do. */
function explainDbError(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === '42P01') return 'the gateway tables do not exist yet: run `npm run migrate` first';
  if (code === '3D000') return 'the database does not exist yet: run `npm run migrate` first (it creates it)';
  if (code === 'ECONNREFUSED')
    return 'Postgres refused the connection: is it running, and is DATABASE_URL right?';
  return (err as Error).message;
}

/**
 * Creates an api key (and its owner on first use, with the configured grant) and prints the raw
 * key once. Only its SHA-256 and display prefix are stored.
 */
export async function createKeyCommand(argv: readonly string[], deps: KeyCreateDeps): Promise<KeyCreateExit> {
  let args: KeyCreateArgs;
  try {
    args = parseKeyCreateArgs(argv);
    const groups = Object.keys(deps.config.groups);
    if (!groups.includes(args.group))
      throw new UsageError(
        `group "${args.group}" is not in the gateway config (groups: ${groups.join(', ') || 'none'})`,
      );
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    deps.err(`key:create: ${err.message}`);
    deps.err(KEY_CREATE_USAGE);
    return 2;
  }

  const now = deps.now?.() ?? new Date();
  const expiresAt =
    args.expiresDays === null ? null : new Date(now.getTime() + args.expiresDays * 86_400_000);
  const grantNanos = BigInt(Math.round(deps.config.worker.default_grant_credits * NANOS_PER_CREDIT));
  const raw = generateApiKey();
  let created: { keyId: string; newUser: boolean };
  try {
    created = await deps.db.transaction().execute(async (trx) => {
      const { user, created: newUser } = await findOrCreateUserByEmail(trx, args.email, grantNanos);
      const key = await insertApiKey(trx, {
        user_id: user.id,
        name: args.name,
        key_hash: hashApiKey(raw),
        display_prefix: displayPrefix(raw),
        group_name: args.group,
        expires_at: expiresAt,
      });
      return { keyId: key.id, newUser };
    });
  } catch (err) {
    deps.err(`key:create: ${explainDbError(err)}`);
    return 1;
  }

  const owner = created.newUser
    ? `new user, granted ${deps.config.worker.default_grant_credits} credits`
    : 'existing user';
  deps.out(`Created key ${created.keyId} for ${args.email.toLowerCase()} (${owner}) in group ${args.group}`);
  if (args.name) deps.out(`name:    ${args.name}`);
  deps.out(`expires: ${expiresAt ? expiresAt.toISOString() : 'never'}`);
  deps.out('');
  deps.out(raw);
  deps.out('');
  deps.out('This is the only time the key is shown: it will not be shown again. Store it now.');
  return 0;
}
