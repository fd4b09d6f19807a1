import { type Kysely, sql } from 'kysely';
import { type Database } from '#libs/db';

/**
 * An organisation of `n` users with one key each, written by set-based SQL (generate_series), as
 * the issue 40 probe did: seconds at 100k, where the console's own paths would take hours.
 * - Emails start with an md5 prefix, so email order is unrelated to creation (or id) order.
 * - 1 in 1000 users is an admin, 1 in 100 an auditor, 1 in 50 disabled.
 * - Keys are created three to a second (ties on created_at: the id must break them); 1 in 40 is
 *   revoked, 1 in 25 has an expiry in the past; 1 in 200 belongs to one of `teams` teams.
 * Returns the time each step took, in ms.
 */
export async function generateOrganisation(
  db: Kysely<Database>,
  n: number,
  teams = 20,
): Promise<Record<string, number>> {
  const took: Record<string, number> = {};
  const step = async (name: string, query: ReturnType<typeof sql>): Promise<void> => {
    const start = performance.now();
    await query.execute(db);
    took[name] = Math.round(performance.now() - start);
  };
  await step(
    'users',
    sql`insert into users (email, role, status, created_at)
      select substr(md5(i::text), 1, 8) || '.' || i || '@scale.test',
             case when i % 1000 = 0 then 'admin' when i % 100 = 0 then 'auditor' else 'member' end,
             case when i % 50 = 0 then 'disabled' else 'active' end,
             timestamptz '2026-01-01' + i * interval '1 second'
      from generate_series(1, ${n}::int) i`,
  );
  await step(
    'balances',
    sql`insert into quota_balances (user_id, balance_nanos) select id, 5000000000 from users`,
  );
  await step(
    'teams',
    sql`insert into teams (name, groups) select 'Team ' || lpad(i::text, 4, '0'), '{default}'
      from generate_series(1, ${teams}::int) i`,
  );
  await step(
    'keys',
    sql`insert into api_keys (user_id, name, key_hash, display_prefix, group_name, status, expires_at,
                              created_at, team_id)
      select u.id,
             'key ' || substr(md5('name' || u.rn), 1, 6),
             encode(sha256(('key' || u.rn)::bytea), 'hex'),
             'sk-' || substr(md5('prefix' || u.rn), 1, 4) || '...' || substr(md5('suffix' || u.rn), 1, 4),
             'default',
             case when u.rn % 40 = 0 then 'revoked' else 'active' end,
             case when u.rn % 25 = 0 then timestamptz '2026-01-01' end,
             timestamptz '2026-02-01' + (u.rn / 3) * interval '1 second',
             case when u.rn % 200 = 0
               then (select t.id from teams t order by t.name offset (u.rn / 200) % ${teams}::int limit 1) end
      from (select id, row_number() over (order by created_at) as rn from users) u`,
  );
  await step(
    'members',
    sql`insert into team_members (team_id, user_id, is_admin)
      select k.team_id, k.user_id, false from api_keys k where k.team_id is not null
      on conflict do nothing`,
  );
  await step('analyze', sql`analyze users, quota_balances, api_keys, teams, team_members`);
  return took;
}
