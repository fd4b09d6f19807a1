import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { type Redis } from 'ioredis';
import { Catalog, CatalogSnapshot, type GatewayConfig } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { announceConfigVersion, ConfigFeed, DEFAULT_POLL_MS } from './config-feed.js';
import { seal } from './envelope.js';
import { parseKeyring } from './keyring.js';
import { composeDocument } from './live-document.js';
import { openSecrets, rotateSecrets, secretHints, storeSecret } from './secrets.repository.js';
import {
  appendVersion,
  ConfigConflictError,
  headVersion,
  listVersions,
  readHead,
} from './versions.repository.js';

const model = (id: string, input = 1) => ({
  id,
  owned_by: 'test',
  created: 1,
  pricing: { input_per_million: input, output_per_million: 2 },
});
const FILE = {
  edge: {},
  router: {},
  worker: {},
  providers: [{ id: 'p1', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m1'] }],
  models: [model('m1')],
  groups: { default: ['m1'] },
};
/** Where p1's key goes: secrets stored for it are bound there. */
const P1 = { provider: 'p1', origins: ['http://127.0.0.1:1'] };
const live = (input: number, extra: Partial<Record<'providers' | 'models' | 'groups', unknown>> = {}) => ({
  providers: FILE.providers,
  models: [model('m1', input)],
  groups: FILE.groups,
  ...extra,
});

/**
 * How long a change may take to reach a feed here. In production a change is live within a
 * second: the notice (proved below with the periodic check off) or, failing it, the 1 s check
 * (DEFAULT_POLL_MS, asserted). The bound leaves room for a loaded CI machine.
 */
const SETTLE_MS = 5_000;

const prefix = uniqueRedisPrefix('config-store');
const keys = redisKeys(prefix);
let tdb: TestDatabase;
let redis: Redis;
const feeds: ConfigFeed[] = [];
const quiet = { debug: () => undefined, log: () => undefined, warn: () => undefined, error: () => undefined };

function catalogOfFile(): Catalog {
  return new Catalog(parseConfig(FILE) as GatewayConfig, {});
}

async function feed(
  catalog: Catalog,
  pollMs = 60_000,
  keyring = null as ReturnType<typeof parseKeyring> | null,
) {
  const errors: string[] = [];
  const f = new ConfigFeed({
    db: tdb.db,
    redis,
    keys,
    catalog,
    fileDocument: FILE,
    filePath: 'test.yaml',
    providerKeys: {},
    keyring,
    logger: { ...quiet, error: (m) => errors.push(m) },
    pollMs,
  });
  feeds.push(f);
  await f.start();
  return { feed: f, errors };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  tdb = await createTestDatabase('config_store');
  redis = createRedis(TEST_REDIS_URL, { name: 'config-store-test' });
});

afterAll(async () => {
  for (const f of feeds) await f.stop();
  redis.disconnect();
  await dropRedisPrefix(prefix);
  await tdb.drop();
});

describe('configuration versions', () => {
  it('seeds version 1 from the file once, however many apps start at the same time', async () => {
    const catalogs = [catalogOfFile(), catalogOfFile(), catalogOfFile()];
    await Promise.all(catalogs.map((c) => feed(c)));
    expect(await headVersion(tdb.db)).toBe(1);
    const head = await readHead(tdb.db);
    expect(head).toMatchObject({ version: 1, source: 'seed', author: 'file:test.yaml' });
    expect(head!.document).toEqual({ providers: FILE.providers, models: FILE.models, groups: FILE.groups });
    for (const c of catalogs) expect(c.version).toBe(1);
  });

  it('refuses the second of two edits made on the same version, and keeps the first', async () => {
    const base = await headVersion(tdb.db);
    const results = await Promise.allSettled([
      appendVersion(tdb.db, { base, document: live(5), source: 'api', author: 'a@example.com' }),
      appendVersion(tdb.db, { base, document: live(7), source: 'api', author: 'b@example.com' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConfigConflictError);
    expect((lost[0] as PromiseRejectedResult).reason.message).toMatch(
      /changed since version \d+ \(now \d+\)/,
    );
    const head = await readHead(tdb.db);
    expect(head!.version).toBe(base + 1);
    // Whoever won, their document is the one stored, whole.
    const winner = (won[0] as PromiseFulfilledResult<number>).value;
    expect(winner).toBe(base + 1);
    expect([5, 7]).toContain(
      (head!.document as { models: [{ pricing: { input_per_million: number } }] }).models[0].pricing
        .input_per_million,
    );
    // A base ahead of the head is a conflict too (it would leave a gap).
    await expect(
      appendVersion(tdb.db, { base: base + 5, document: live(1), source: 'api', author: 'c@example.com' }),
    ).rejects.toBeInstanceOf(ConfigConflictError);
    const versions = await listVersions(tdb.db, 2);
    expect(versions.map((v) => v.version)).toEqual([base + 1, base]);
  });

  it('checks for a newer version every second at most, so a lost notice delays a change by a second', () => {
    expect(DEFAULT_POLL_MS).toBeLessThanOrEqual(1_000);
  });

  it('brings every feed to a saved version on the notice alone (periodic check off)', async () => {
    const catalogs = [catalogOfFile(), catalogOfFile()];
    for (const c of catalogs) await feed(c);
    const base = await headVersion(tdb.db);
    const version = await appendVersion(tdb.db, { base, document: live(11), source: 'api', author: 'x' });
    await announceConfigVersion(redis, keys, version);
    await until(() => catalogs.every((c) => c.version === version), SETTLE_MS);
    for (const c of catalogs) expect(c.models.get('m1')!.pricing.input_per_million).toBe(11);
  }, 20_000);

  it('catches a version whose notice was lost, by its periodic check', async () => {
    const catalog = catalogOfFile();
    await feed(catalog, 100);
    const base = await headVersion(tdb.db);
    const version = await appendVersion(tdb.db, { base, document: live(13), source: 'api', author: 'x' });
    // No announcement.
    await until(() => catalog.version === version, SETTLE_MS);
    expect(catalog.models.get('m1')!.pricing.input_per_million).toBe(13);
  }, 20_000);

  it('keeps serving the current version when a newer one does not validate, and says why', async () => {
    const catalog = catalogOfFile();
    const { errors } = await feed(catalog, 100);
    const before = catalog.version;
    const base = await headVersion(tdb.db);
    // Written around the API's checks, as an older app or a hand edit could.
    await appendVersion(tdb.db, {
      base,
      document: live(1, { groups: { default: ['nope'] } }),
      source: 'api',
      author: 'x',
    });
    await until(() => errors.length > 0, SETTLE_MS);
    expect(catalog.version).toBe(before);
    expect(errors[0]).toMatch(/version \d+ not applied .*groups\.default\[0\]: unknown model nope/);
    // A snapshot taken before keeps its version whatever comes after.
    const snap = catalog.snapshot();
    await appendVersion(tdb.db, { base: base + 1, document: live(17), source: 'api', author: 'x' });
    await until(() => catalog.version === base + 2, SETTLE_MS);
    expect(snap.models.get('m1')!.pricing.input_per_million).not.toBe(17);
    expect(catalog.models.get('m1')!.pricing.input_per_million).toBe(17);
  }, 20_000);
});

describe('provider secrets at rest', () => {
  const key1 = randomBytes(32).toString('base64');
  const key2 = randomBytes(32).toString('base64');

  it('stores a key sealed, gives back only its hint, and a provider naming it gets the key', async () => {
    const ring = parseKeyring(`k1:${key1}`);
    const stored = await storeSecret(tdb.db, ring, 'sk-test-abcdefghijklmnop9876', P1, 'admin@example.com');
    expect(stored.hint).toBe('sk-test-...9876');
    const raw = await tdb.db
      .selectFrom('config_secrets')
      .selectAll()
      .where('id', '=', stored.id)
      .executeTakeFirstOrThrow();
    expect(raw.ciphertext.toString('latin1')).not.toContain('abcdefghijklmnop');
    expect(JSON.stringify(raw)).not.toContain('abcdefghijklmnop');
    expect(await secretHints(tdb.db, [stored.id])).toEqual(new Map([[stored.id, 'sk-test-...9876']]));

    const catalog = catalogOfFile();
    await feed(catalog, 100, ring);
    const base = await headVersion(tdb.db);
    const providers = [{ ...FILE.providers[0], api_key_secret: stored.id }];
    await appendVersion(tdb.db, { base, document: live(1, { providers }), source: 'api', author: 'x' });
    await until(() => catalog.version === base + 1, SETTLE_MS);
    expect(catalog.providers.get('p1')).toMatchObject({
      apiKey: 'sk-test-abcdefghijklmnop9876',
      disabledReason: null,
    });
  }, 20_000);

  it('rotates the key-encryption key: every data key rewrapped, all or nothing, the old key then unneeded', async () => {
    const ring1 = parseKeyring(`k1:${key1}`);
    const a = await storeSecret(tdb.db, ring1, 'secret-a-0123456789', P1, 'x');
    const b = await storeSecret(tdb.db, ring1, 'secret-b-0123456789', P1, 'x');
    const both = parseKeyring(`k2:${key2},k1:${key1}`);
    const result = await rotateSecrets(tdb.db, both);
    expect(result.rewrapped).toBeGreaterThanOrEqual(2);
    expect(await rotateSecrets(tdb.db, both)).toMatchObject({ rewrapped: 0 });
    const ring2 = parseKeyring(`k2:${key2}`);
    const opened = await openSecrets(tdb.db, ring2, [a.id, b.id]);
    expect(opened.failures).toEqual(new Map());
    expect([...opened.values.values()].sort()).toEqual(['secret-a-0123456789', 'secret-b-0123456789']);
    // Without the new key, nothing opens, and the reason names the key, never a value.
    const lost = await openSecrets(tdb.db, ring1, [a.id]);
    expect(lost.failures.get(a.id)).toMatch(/wrapped by key k2, not in the keyring/);
  });

  it('rolls a rotation back whole when one data key does not unwrap', async () => {
    const ring1 = parseKeyring(`k1:${key1}`);
    const stranger = parseKeyring(`k7:${randomBytes(32).toString('base64')}`);
    await storeSecret(tdb.db, ring1, 'secret-c-0123456789', P1, 'x');
    await storeSecret(tdb.db, stranger, 'secret-d-0123456789', P1, 'x');
    const kekIds = async () =>
      (await tdb.db.selectFrom('config_secrets').select(['kek_id']).execute()).map((r) => r.kek_id).sort();
    const before = await kekIds();
    await expect(
      rotateSecrets(tdb.db, parseKeyring(`k3:${randomBytes(32).toString('base64')},k1:${key1},k2:${key2}`)),
    ).rejects.toThrow(/wrapped by key k7, not in the keyring/);
    expect(await kekIds()).toEqual(before);
  });

  it('marks a provider whose stored key cannot be opened as disabled, with the reason', async () => {
    const ring = parseKeyring(`k1:${key1}`);
    const s = await storeSecret(tdb.db, ring, 'sk-unopenable-0123456789', P1, 'x');
    const config = parseConfig(
      composeDocument(FILE, live(1, { providers: [{ ...FILE.providers[0], api_key_secret: s.id }] })),
    );
    const opened = await openSecrets(tdb.db, null, [s.id]);
    const snap = new CatalogSnapshot(config, {}, 1, opened);
    expect(snap.providers.get('p1')!.disabledReason).toMatch(/GATEWAY_SECRET_KEYS is not set/);
    expect(snap.servedModelIds.has('m1')).toBe(false);
  });
});

describe('a stored secret is bound to where it was saved for', () => {
  const ring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
  const snapshotWith = async (id: string, provider: Record<string, unknown>) => {
    const config = parseConfig(
      composeDocument(
        FILE,
        live(1, { providers: [{ ...FILE.providers[0], ...provider, api_key_secret: id }] }),
      ),
    );
    const opened = await openSecrets(tdb.db, ring, [id]);
    return new CatalogSnapshot(config, {}, 1, opened);
  };

  it('is used by its provider at its origin, and by no other provider or origin', async () => {
    const s = await storeSecret(tdb.db, ring, 'sk-bound-0123456789abcdef', P1, 'x');
    expect((await snapshotWith(s.id, {})).providers.get('p1')).toMatchObject({
      apiKey: 'sk-bound-0123456789abcdef',
      disabledReason: null,
    });
    // The same provider pointed elsewhere: the key is not sent, and the reason says to enter it again.
    const moved = (await snapshotWith(s.id, { base_url: 'http://127.0.0.2:1/v1' })).providers.get('p1')!;
    expect(moved.apiKey).toBeUndefined();
    expect(moved.disabledReason).toMatch(
      /saved for provider p1 at http:\/\/127\.0\.0\.1:1, not p1 at http:\/\/127\.0\.0\.2:1: enter the key again/,
    );
    // Another provider at the same address: not the one it was saved for.
    const other = await snapshotWith(s.id, { id: 'p2' });
    expect(other.providers.get('p2')!.apiKey).toBeUndefined();
  });

  it('a row whose binding columns were edited no longer opens (the binding is sealed with it)', async () => {
    const s = await storeSecret(tdb.db, ring, 'sk-sealed-0123456789abcdef', P1, 'x');
    await tdb.db
      .updateTable('config_secrets')
      .set({ bound_origins: ['http://attacker.example'] } as never)
      .where('id', '=', s.id)
      .execute();
    const opened = await openSecrets(tdb.db, ring, [s.id]);
    expect(opened.values.has(s.id)).toBe(false);
    expect(opened.failures.get(s.id)).toMatch(/ciphertext does not authenticate/);
  });

  it('a bound row stripped of its binding does not open as a legacy one', async () => {
    const s = await storeSecret(tdb.db, ring, 'sk-stripped-0123456789abcdef', P1, 'x');
    await tdb.db
      .updateTable('config_secrets')
      .set({ bound_provider: null, bound_origins: null, binding_sealed: false } as never)
      .where('id', '=', s.id)
      .execute();
    expect((await openSecrets(tdb.db, ring, [s.id])).failures.get(s.id)).toMatch(/does not authenticate/);
  });

  it('a secret stored before bindings, that no provider used, is usable nowhere until entered again', async () => {
    const id = randomUUID();
    const sealed = seal(id, 'sk-legacy-0123456789abcdef', ring);
    await tdb.db
      .insertInto('config_secrets')
      .values({
        id,
        kek_id: sealed.kekId,
        wrapped_key: sealed.wrappedKey,
        ciphertext: sealed.ciphertext,
        hint: '...',
        created_by: 'x',
      })
      .execute();
    const p = (await snapshotWith(id, {})).providers.get('p1')!;
    expect(p.apiKey).toBeUndefined();
    expect(p.disabledReason).toMatch(
      /stored before keys were bound to their provider and address: enter the key again/,
    );
  });
});
