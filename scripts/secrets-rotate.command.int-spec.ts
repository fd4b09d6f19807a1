import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { openSecrets, parseKeyring, storeSecret } from '#libs/config-store';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { rotateCommand } from './secrets-rotate.command.js';

const key = (): string => randomBytes(32).toString('base64');
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('secrets_rotate');
});
afterAll(async () => {
  await t.drop();
});

async function run(keys: string | undefined): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await rotateCommand({ db: t.db, keys, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('npm run secrets:rotate', () => {
  it('rewraps every secret under the new key, after which the old key is not needed', async () => {
    const old = key();
    const fresh = key();
    const a = await storeSecret(
      t.db,
      parseKeyring(`old:${old}`),
      'sk-first-0123456789abc',
      { provider: 'p', origins: ['https://api.example.com'] },
      'admin@example.com',
    );
    const b = await storeSecret(
      t.db,
      parseKeyring(`old:${old}`),
      'sk-second-0123456789abc',
      { provider: 'p', origins: ['https://api.example.com'] },
      'admin@example.com',
    );
    const rotated = await run(`new:${fresh},old:${old}`);
    expect(rotated).toMatchObject({ code: 0, err: [] });
    expect(rotated.out[0]).toMatch(/^rewrapped 2 secret\(s\) under key new; 0 already were/);
    const opened = await openSecrets(t.db, parseKeyring(`new:${fresh}`), [a.id, b.id]);
    expect([...opened.values.values()].sort()).toEqual(['sk-first-0123456789abc', 'sk-second-0123456789abc']);
    // Again: nothing left to do.
    expect((await run(`new:${fresh},old:${old}`)).out[0]).toMatch(
      /^rewrapped 0 secret\(s\) under key new; 2 already were/,
    );
  });

  it('changes nothing and says which key is missing when a secret does not unwrap', async () => {
    const before = await t.db.selectFrom('config_secrets').select(['id', 'kek_id']).orderBy('id').execute();
    const result = await run(`newer:${key()}`);
    expect(result.code).toBe(1);
    expect(result.err[0]).toMatch(/^nothing rotated: secret .* is wrapped by key new, not in the keyring/);
    expect(await t.db.selectFrom('config_secrets').select(['id', 'kek_id']).orderBy('id').execute()).toEqual(
      before,
    );
  });

  it('refuses a missing or malformed keyring without echoing a key', async () => {
    expect(await run(undefined)).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/GATEWAY_SECRET_KEYS is not set/)],
    });
    const bad = await run('k1:dG9vLXNob3J0');
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/must be 32 bytes/);
    expect(bad.err[0]).not.toContain('dG9vLXNob3J0');
  });
});
