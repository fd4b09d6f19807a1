import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { type LogPartition, logPartitionOf } from './log-partitions.js';

/**
 * Synthetic request logs for plan and scale tests, in the worker's column shapes, written by set
 * (INSERT ... SELECT generate_series): 500k rows in seconds. Not used by the apps.
 *
 * The mix (deterministic, setseed): 1,000 users; user 0 makes every tenth request (the heavy
 * user) and almost never uses `claude-sonnet`, which everyone else uses for a quarter of theirs.
 * Two keys each (`logKeyId(u, 0|1)`); the second key of every fifth user is a key of team
 * `u % 20`, so a tenth of the rows are a team's and team 0 holds half of the heavy user's. Models:
 * six common ones and `rare-model` (0.02 %). Status 200 97 %; 400 and 499 1 % each, 502 0.5 %,
 * 401 0.2 %, 503 0.1 %; 429, 504, 402 and 404 0.05 % each. Times uniform over `days` up to `now`.
 */
export interface GeneratedLogs {
  readonly rows: number;
  readonly partitions: readonly LogPartition[];
}

const uuid = (prefix: string, n: number): string =>
  `00000000-0000-4000-${prefix}-${n.toString(16).padStart(12, '0')}`;
export const logUserId = (u: number): string => uuid('8000', u);
export const logKeyId = (u: number, k: 0 | 1): string => uuid('9000', u * 2 + k);
export const logTeamId = (t: number): string => uuid('a000', t);

/** The generated rows, `count` of them, spread uniformly over `days` before `now`. */
const rowsOf = (count: number, days: number, now: Date) => sql`
  select 'req_' || md5(g::text) as request_id, ts as started_at,
    ('00000000-0000-4000-9000-' || lpad(to_hex(u * 2 + k), 12, '0'))::uuid as key_id,
    ('00000000-0000-4000-8000-' || lpad(to_hex(u), 12, '0'))::uuid as user_id,
    case when k = 1 and u % 5 = 0 then ('00000000-0000-4000-a000-' || lpad(to_hex(u % 20), 12, '0'))::uuid end as team_id,
    'default' as group_name,
    case when rm < 0.97 then '/v1/chat/completions' else '/v1/embeddings' end as endpoint,
    m as model, m as requested_model, 'openai' as provider_id, m as upstream_model, rs < 0.5 as stream, st as status,
    case when st >= 400 then 'upstream_error' end as error_code,
    (50 + rl * 2000)::int as latency_ms, case when rs < 0.5 then (20 + rl * 300)::int end as ttft_ms,
    1000 as input_tokens, 200 as output_tokens, 0 as cached_tokens, 1000 as uncached_input_tokens,
    0 as cache_write_5m_tokens, 0 as cache_write_1h_tokens, 0 as reasoning_tokens, 0 as audio_input_tokens,
    0 as cached_audio_input_tokens, 0 as audio_output_tokens, 0 as web_search_requests, 0 as input_characters,
    '{"input": 150000000, "output": 600000000}'::jsonb as prices, 270000000::bigint as cost_nanos,
    ('[{"providerId":"openai","status":' || st || ',"outcome":"ok","latencyMs":40}]')::jsonb as attempts
  from (
    select g, u, k, rm, rs, rl, ts,
      case when u = 0 then
        case when rm < 0.0005 then 'claude-sonnet' when rm < 0.6 then 'gpt-4o-mini' else 'gpt-4o' end
      else case when rm < 0.4 then 'gpt-4o-mini' when rm < 0.65 then 'claude-sonnet' when rm < 0.8 then 'gpt-4o'
        when rm < 0.9 then 'gemini-flash' when rm < 0.97 then 'text-embedding-3-small'
        when rm < 0.9998 then 'llama-70b' else 'rare-model' end end as m,
      case when rs2 < 0.97 then 200 when rs2 < 0.98 then 400 when rs2 < 0.99 then 499 when rs2 < 0.995 then 502
        when rs2 < 0.997 then 401 when rs2 < 0.998 then 503 when rs2 < 0.9985 then 429 when rs2 < 0.999 then 504
        when rs2 < 0.9995 then 402 else 404 end as st
    from (
      select g, case when g % 10 = 0 then 0 else 1 + (random() * 998)::int end as u,
        (random() < 0.5)::int as k, random() as rm, random() as rs, random() as rs2, random() as rl,
        ${sql.lit(now.toISOString())}::timestamptz - random() * ${sql.lit(`${days} days`)}::interval as ts
      from generate_series(1, ${sql.lit(count)}) g) a) b`;

function monthsBetween(from: Date, to: Date): LogPartition[] {
  const out: LogPartition[] = [];
  for (let p = logPartitionOf(from.getUTCFullYear(), from.getUTCMonth()); p.from < to;) {
    out.push(p);
    p = logPartitionOf(p.to.getUTCFullYear(), p.to.getUTCMonth());
  }
  return out;
}

/**
 * Replaces the monthly partitions covering [now - days, now] with `rows` generated logs. Each
 * month is filled as a plain table in time order (as the worker appends them: the planner sees
 * started_at correlated with the heap), then attached, which builds the request_logs indexes on
 * it in one sorted pass instead of 500k index insertions. Then ANALYZE.
 */
export async function generateRequestLogs(
  db: Kysely<Database>,
  opts: { rows: number; days: number; now: Date },
): Promise<GeneratedLogs> {
  const from = new Date(opts.now.getTime() - opts.days * 86_400_000);
  const partitions = monthsBetween(from, opts.now);
  await db.connection().execute(async (conn) => {
    // One session: setseed makes the mix the same on every run.
    await sql`select setseed(0.40)`.execute(conn);
    await sql`create unlogged table request_logs_generated as ${rowsOf(opts.rows, opts.days, opts.now)}`.execute(
      conn,
    );
  });
  for (const p of partitions) {
    const [lo, hi] = [sql.lit(p.from.toISOString()), sql.lit(p.to.toISOString())];
    const table = sql.table(p.name);
    await sql`drop table if exists ${table}`.execute(db);
    await sql`create table ${table} (like request_logs including defaults)`.execute(db);
    await sql`insert into ${table} (${sql.raw(COLUMNS)})
      select ${sql.raw(COLUMNS)} from request_logs_generated
      where started_at >= ${lo}::timestamptz and started_at < ${hi}::timestamptz order by started_at`.execute(
      db,
    );
    // The constraint spares ATTACH its validation scan.
    await sql`alter table ${table} add check (started_at >= ${lo}::timestamptz and started_at < ${hi}::timestamptz)`.execute(
      db,
    );
    await sql`alter table request_logs attach partition ${table} for values from (${lo}) to (${hi})`.execute(
      db,
    );
  }
  await sql`drop table request_logs_generated`.execute(db);
  await sql`analyze request_logs`.execute(db);
  return { rows: opts.rows, partitions };
}

const COLUMNS = `request_id, started_at, key_id, user_id, team_id, group_name, endpoint, model, requested_model,
  provider_id, upstream_model, stream, status, error_code, latency_ms, ttft_ms, input_tokens, output_tokens,
  cached_tokens, uncached_input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens,
  audio_input_tokens, cached_audio_input_tokens, audio_output_tokens, web_search_requests, input_characters,
  prices, cost_nanos, attempts`;
