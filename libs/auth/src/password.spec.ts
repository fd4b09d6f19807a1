import { describe, expect, it } from '@jest/globals';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from './password.js';

/** Cheap parameters keep the suite fast; the format and the checks are the same. */
const FAST = { N: 1024, r: 8, p: 1 };

describe('password hashing', () => {
  it('stores algorithm, parameters, salt and hash in one string', async () => {
    const stored = await hashPassword('correct horse battery', FAST);
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain('correct horse battery');
  });

  it('salts every hash, so equal passwords hash differently', async () => {
    const [a, b] = await Promise.all([
      hashPassword('same password!', FAST),
      hashPassword('same password!', FAST),
    ]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password!', a)).toBe(true);
    expect(await verifyPassword('same password!', b)).toBe(true);
  });

  it('rejects a wrong password', async () => {
    const stored = await hashPassword('correct horse battery', FAST);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('verifies with the parameters stored in the hash, not the current defaults', async () => {
    const stored = await hashPassword('pw with old params', { N: 2048, r: 4, p: 2 });
    expect(await verifyPassword('pw with old params', stored)).toBe(true);
    expect(needsRehash(stored)).toBe(true);
  });

  it('treats Unicode compositions of the same text as equal', async () => {
    const stored = await hashPassword('caf\u00e9 au lait', FAST);
    expect(await verifyPassword('cafe\u0301 au lait', stored)).toBe(true);
  });

  it.each([
    [''],
    ['bcrypt$10$abc'],
    ['scrypt$1000$8$1$c2FsdHNhbHQ$aGFzaA'], // N not a power of two
    ['scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0$' + 'A'.repeat(43)], // N past the ceiling
    ['scrypt$1024$99$1$c2FsdHNhbHRzYWx0$' + 'A'.repeat(43)], // r past the ceiling
    ['scrypt$1024$8$1$c2FsdHNhbHRzYWx0$short'],
  ])('never matches the malformed hash %p', async (stored) => {
    expect(await verifyPassword('anything', stored)).toBe(false);
  });

  it('does the same work for an unknown user and says no', async () => {
    expect(await verifyAgainstDummy('whatever')).toBe(false);
  });
});
