import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `usage_hourly` (issue 40): the request logs summed per UTC hour, account (user, team), key,
 * model and provider, so a usage report reads at most 24 rows per day and model instead of every
 * request. The worker writes it in the statement that inserts the logs, from the rows that insert
 * actually stored (a redelivered log adds nothing); `npm run usage:rebuild` recomputes hours from
 * the logs. Hourly, not daily: the usage API takes any instant as its bounds, and whole hours
 * leave at most two partial hours to read from the logs (a whole day would leave two days).
 * Kept forever: a row per active key, model and provider per hour, not per request.
 *
 * `cache_savings_e6` is the unrounded sum of each request's cache savings (tokens x price
 * difference, nanocredits x 1e6): a report rounds the sum of its rows once, as it did from the logs.
 * The key is unique with nulls not distinct (Postgres 15+): a log without a user, key, model or
 * provider still has one row per hour.
 */
export async function up(db: Db): Promise<void> {
  await sql`create table usage_hourly (
    hour timestamptz not null,
    user_id uuid,
    team_id uuid,
    key_id uuid,
    model text,
    provider_id text,
    requests bigint not null default 0,
    error_requests bigint not null default 0,
    input_tokens bigint not null default 0,
    output_tokens bigint not null default 0,
    cached_tokens bigint not null default 0,
    cache_write_5m_tokens bigint not null default 0,
    cache_write_1h_tokens bigint not null default 0,
    reasoning_tokens bigint not null default 0,
    audio_input_tokens bigint not null default 0,
    cached_audio_input_tokens bigint not null default 0,
    audio_output_tokens bigint not null default 0,
    web_search_requests bigint not null default 0,
    input_characters bigint not null default 0,
    cost_nanos bigint not null default 0,
    cache_savings_e6 numeric not null default 0,
    constraint usage_hourly_key unique nulls not distinct (hour, user_id, team_id, key_id, model, provider_id)
  )`.execute(db);
  // A user's own account (its keys of no team), and a team's (all of it, or one member's).
  await sql`create index usage_hourly_user_idx on usage_hourly (user_id, hour) where team_id is null`.execute(
    db,
  );
  await sql`create index usage_hourly_team_idx on usage_hourly (team_id, hour) where team_id is not null`.execute(
    db,
  );
  // The logs already stored. Logs written by workers of the previous version while this runs are
  // not counted: rebuild the hours of the rollout once every worker runs this version
  // (docs/operations.md, "Usage rollups").
  await sql`insert into usage_hourly
    select date_trunc('hour', started_at, 'UTC'), user_id, team_id, key_id, model, provider_id,
      count(*), count(*) filter (where status >= 400),
      coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cached_tokens), 0),
      coalesce(sum(cache_write_5m_tokens), 0), coalesce(sum(cache_write_1h_tokens), 0),
      coalesce(sum(reasoning_tokens), 0), coalesce(sum(audio_input_tokens), 0),
      coalesce(sum(cached_audio_input_tokens), 0), coalesce(sum(audio_output_tokens), 0),
      coalesce(sum(web_search_requests), 0), coalesce(sum(input_characters), 0),
      coalesce(sum(cost_nanos), 0),
      coalesce(sum(coalesce(cached_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheRead')::numeric)
        + coalesce(cache_write_5m_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite5m')::numeric)
        + coalesce(cache_write_1h_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite1h')::numeric)), 0)
    from request_logs
    group by 1, 2, 3, 4, 5, 6`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop table usage_hourly`.execute(db);
}
