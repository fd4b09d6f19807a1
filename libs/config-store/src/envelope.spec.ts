import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { open, rewrap, seal, secretHint } from './envelope.js';
import { KeyringError, parseKeyring } from './keyring.js';

const k = (): string => randomBytes(32).toString('base64');
const ID = '6f1c8a8e-2f6b-4d8e-9a51-0c1f2e3d4b5a';

describe('keyring', () => {
  it('reads id:base64 pairs, newest first', () => {
    const ring = parseKeyring(`k2:${k()}, k1:${k()}`);
    expect(ring.current.id).toBe('k2');
    expect(ring.ids).toEqual(['k2', 'k1']);
    expect(ring.byId('k1')?.key).toHaveLength(32);
  });

  it.each([
    ['', /is empty/],
    ['k1', /expected <id>:<base64 key>/],
    [`bad id:${k()}`, /expected <id>:<base64 key>/],
    ['k1:c2hvcnQ=', /must be 32 bytes.*got 5/],
  ])('refuses %j without echoing the key', (text, message) => {
    expect(() => parseKeyring(text)).toThrow(message);
    try {
      parseKeyring(text);
    } catch (err) {
      expect(err).toBeInstanceOf(KeyringError);
      if (text.includes(':')) expect((err as Error).message).not.toContain(text.split(':')[1]);
    }
  });

  it('refuses an id twice', () => {
    expect(() => parseKeyring(`a:${k()},a:${k()}`)).toThrow(/appears twice/);
  });
});

describe('envelope', () => {
  const ring = parseKeyring(`k1:${k()}`);

  it('opens what it sealed, and the stored bytes hold neither the secret nor the data key in clear', () => {
    const sealed = seal(ID, 'sk-proj-abcdefghijklmnop1234', ring);
    expect(sealed.kekId).toBe('k1');
    expect(sealed.ciphertext.toString('utf8')).not.toContain('abcdefghijklmnop');
    expect(open(ID, sealed, ring)).toBe('sk-proj-abcdefghijklmnop1234');
  });

  it('seals the same secret differently each time (fresh data key and IVs)', () => {
    const a = seal(ID, 'same', ring);
    const b = seal(ID, 'same', ring);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.wrappedKey.equals(b.wrappedKey)).toBe(false);
  });

  it('refuses a ciphertext moved to another secret id, a flipped bit, or an unknown key', () => {
    const sealed = seal(ID, 'secret-value-123456', ring);
    expect(() => open('00000000-0000-4000-8000-000000000000', sealed, ring)).toThrow(KeyringError);
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[flipped.length - 1]! ^= 1;
    expect(() => open(ID, { ...sealed, ciphertext: flipped }, ring)).toThrow(/does not authenticate/);
    expect(() => open(ID, sealed, parseKeyring(`k1:${k()}`))).toThrow(/does not authenticate under key k1/);
    expect(() => open(ID, sealed, parseKeyring(`k9:${k()}`))).toThrow(
      /wrapped by key k1, not in the keyring/,
    );
  });

  it('rewraps under a new key without changing the ciphertext, after which the old key is not needed', () => {
    const old = parseKeyring(`k1:${ring.byId('k1')!.key.toString('base64')}`);
    const sealed = seal(ID, 'rotate-me-please-123', old);
    const newKey = k();
    const both = parseKeyring(`k2:${newKey},k1:${old.current.key.toString('base64')}`);
    const next = rewrap(ID, sealed, both);
    expect(next.kekId).toBe('k2');
    expect(open(ID, { ...sealed, ...next }, parseKeyring(`k2:${newKey}`))).toBe('rotate-me-please-123');
  });

  it('hints at a secret with its vendor prefix and last four characters only', () => {
    expect(secretHint('sk-proj-abcdefghijklmnopqrstuvwxyz')).toBe('sk-proj-...wxyz');
    expect(secretHint('sk-ant-api03-abcdefghijklmnop')).toBe('sk-ant-...mnop');
    expect(secretHint('AKIAABCDEFGHIJKLMNOP')).toBe('...MNOP');
    expect(secretHint('short-key')).toBe('...');
  });
});
