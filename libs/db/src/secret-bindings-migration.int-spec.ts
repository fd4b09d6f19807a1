import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Kysely, sql } from 'kysely';
import { createDatabaseBelow } from '../../../test/support/db.js';
import { type Database } from './database.js';

// Migration 0017 on a database with stored secrets: each is bound to the provider of the newest
// configuration version that names it, at the origin its settings send it to; a secret no
// provider of that version names stays unbound (usable nowhere until entered again).

let t: Awaited<ReturnType<typeof createDatabaseBelow>>;
let db: Kysely<Database>;
const ids = {
  openai: randomUUID(),
  bedrock: randomUUID(),
  vpce: randomUUID(),
  unused: randomUUID(),
  old: randomUUID(),
};

beforeAll(async () => {
  t = await createDatabaseBelow('bindings', '0017');
  db = t.db;
  for (const id of Object.values(ids))
    await sql`insert into config_secrets (id, kek_id, wrapped_key, ciphertext, hint, created_by)
      values (${id}, 'k1', '\\x00', '\\x00', '...', 'x')`.execute(db);
  const old = {
    providers: [{ id: 'gone', type: 'openai', base_url: 'https://old.example/v1', api_key_secret: ids.old }],
  };
  const head = {
    providers: [
      {
        id: 'openai',
        type: 'openai',
        base_url: 'HTTPS://user@API.Example.com:443/v1',
        api_key_secret: ids.openai,
      },
      { id: 'br', type: 'bedrock', region: 'us-east-1', api_key_secret: ids.bedrock },
      {
        id: 'vpc',
        type: 'bedrock',
        region: 'eu-west-1',
        base_url: 'https://vpce-1.bedrock-runtime.eu-west-1.vpce.amazonaws.com',
        control_plane_url: 'https://vpce-2.bedrock.eu-west-1.vpce.amazonaws.com/',
        api_key_secret: ids.vpce,
      },
      { id: 'keyless', type: 'openai-compatible', base_url: 'http://127.0.0.1:8000/v1' },
    ],
  };
  await sql`insert into config_versions (version, document, source, author)
    values (1, ${JSON.stringify(old)}::jsonb, 'seed', 'x'), (2, ${JSON.stringify(head)}::jsonb, 'console', 'x')`.execute(
    db,
  );
  await t.migrateBelow('0018');
}, 30_000);

afterAll(async () => {
  await t?.drop();
});

describe('migration 0017', () => {
  it('binds each secret the newest version uses to its provider and origins, and no other', async () => {
    const rows = await db
      .selectFrom('config_secrets')
      .select(['id', 'bound_provider', 'bound_origins', 'binding_sealed'])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ids.openai)).toMatchObject({
      bound_provider: 'openai',
      bound_origins: ['https://api.example.com'],
    });
    expect(byId.get(ids.bedrock)).toMatchObject({
      bound_provider: 'br',
      bound_origins: ['https://bedrock-runtime.us-east-1.amazonaws.com'],
    });
    expect(byId.get(ids.vpce)).toMatchObject({
      bound_provider: 'vpc',
      bound_origins: [
        'https://vpce-1.bedrock-runtime.eu-west-1.vpce.amazonaws.com',
        'https://vpce-2.bedrock.eu-west-1.vpce.amazonaws.com',
      ],
    });
    for (const id of [ids.unused, ids.old])
      expect(byId.get(id)).toMatchObject({ bound_provider: null, bound_origins: null });
    // Bound from the configuration, not sealed with it: the migration holds no key-encryption key.
    expect(rows.every((r) => r.binding_sealed === false)).toBe(true);
  });

  it('refuses a half binding, and a sealed one without its provider', async () => {
    await expect(
      sql`update config_secrets set bound_origins = null where id = ${ids.openai}`.execute(db),
    ).rejects.toThrow(/config_secrets_binding_check/);
    await expect(
      sql`update config_secrets set binding_sealed = true where id = ${ids.unused}`.execute(db),
    ).rejects.toThrow(/config_secrets_binding_check/);
  });
});
