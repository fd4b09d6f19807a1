import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * A stored secret is bound to where it was saved for (issue 31): the provider it was entered for
 * and the origins its base URL (and Bedrock's control plane) had then. Every app refuses to send
 * it anywhere else, and the console refuses a configuration that would.
 *
 * - `bound_provider`, `bound_origins`: the binding; null on a row stored before this migration
 *   that no provider of the newest configuration uses (it can be used nowhere: enter it again).
 * - `binding_sealed`: the binding is also in the ciphertext's additional data (rows stored from
 *   now on), so a row whose binding columns were edited no longer opens. Rows bound below, from
 *   the configuration, are not (the migration holds no key-encryption key to reseal them).
 *
 * Existing rows are bound to the provider of the newest configuration version that names them,
 * at its base URL's origin (Bedrock without one: its region's public endpoint), as the apps
 * compute it for the common forms; a row named by several providers takes one of them.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('config_secrets')
    .addColumn('bound_provider', 'text')
    .addColumn('bound_origins', sql`text[]`)
    .addColumn('binding_sealed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`
    with head as (
      select document from config_versions order by version desc limit 1
    ), used as (
      select p->>'api_key_secret' as secret_id, p->>'id' as provider,
        coalesce(
          p->>'base_url',
          case when p->>'type' = 'bedrock' then 'https://bedrock-runtime.' || (p->>'region') || '.amazonaws.com' end
        ) as base_url,
        p->>'control_plane_url' as control_plane_url
      from head, jsonb_array_elements(case when jsonb_typeof(head.document->'providers') = 'array'
        then head.document->'providers' else '[]'::jsonb end) as p
      where jsonb_typeof(p) = 'object' and p ? 'api_key_secret'
    ), origins as (
      select secret_id, provider,
        array(select distinct o from unnest(array[base_url, control_plane_url]) as u(url),
          lateral (select regexp_replace(regexp_replace(substring(lower(url) from '^https?://[^/?#]+'),
            '^(https?://)[^@]*@', '\\1'), '^(https://[^:]+):443$|^(http://[^:]+):80$', '\\1\\2') as o) x
          where url is not null and o is not null order by o) as origins
      from used
    )
    update config_secrets s
      set bound_provider = origins.provider, bound_origins = origins.origins
      from origins
      where s.id::text = origins.secret_id and s.bound_provider is null`.execute(db);
  await sql`alter table config_secrets add constraint config_secrets_binding_check
    check ((bound_provider is null) = (bound_origins is null)
      and (not binding_sealed or bound_provider is not null))`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table config_secrets drop constraint config_secrets_binding_check,
    drop column binding_sealed, drop column bound_origins, drop column bound_provider`.execute(db);
}
