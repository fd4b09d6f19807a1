import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyring } from '#libs/config-store';
import { secretKeysFor } from './secret-keys.js';

describe('npm start: the key-encryption key of stored provider keys', () => {
  it("takes the environment's keyring as it is", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'var', 'secret-keys');
    expect(secretKeysFor('k1:abc', file)).toEqual({ keys: 'k1:abc', source: 'env' });
  });

  it('makes a local key once, readable by its owner only, and reuses it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'var', 'secret-keys');
    const made = secretKeysFor(undefined, file);
    expect(made.source).toBe('created');
    expect(parseKeyring(made.keys).current.id).toBe('local');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(made.keys);
    expect(secretKeysFor(undefined, file)).toEqual({ keys: made.keys, source: 'file' });
  });
});
