import { describe, expect, it } from '@jest/globals';
import { REDACTED, redactSecrets } from './redact.js';

const KEY = 'sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'; // 49 characters

describe('redactSecrets', () => {
  it('hides the whole key, any part of it of 8 or more characters, and a part cut at the end', () => {
    expect(redactSecrets(`bad key ${KEY}, again`, [KEY])).toBe(`bad key ${REDACTED}, again`);
    expect(redactSecrets(`echo ${KEY.slice(5, 30)} end`, [KEY])).toBe(`echo ${REDACTED} end`);
    // The probe's finding: 250 characters of padding, then the key, cut at 300: 41 of its characters.
    const answer = `${'x'.repeat(250)} ${KEY}`.slice(0, 300);
    const shown = redactSecrets(answer, [KEY]);
    expect(shown).toBe(`${'x'.repeat(250)} ${REDACTED}`);
    for (let i = 0; i + 8 <= KEY.length; i++) expect(shown).not.toContain(KEY.slice(i, i + 8));
  });

  it('keeps runs shorter than 8 characters, and text with no secret', () => {
    expect(redactSecrets('key ending in ...EFGH was refused', [KEY])).toBe(
      'key ending in ...EFGH was refused',
    );
    expect(redactSecrets('nothing here', [KEY, undefined])).toBe('nothing here');
    expect(redactSecrets('no key', [undefined])).toBe('no key');
  });

  it('hides every credential given (a cloud token beside a key)', () => {
    const token = 'Bearer ya29.token-from-google-0123456789';
    expect(redactSecrets(`got=ya29.token-from-google-0123456789 and ${KEY}`, [KEY, token])).toBe(
      `got=${REDACTED} and ${REDACTED}`,
    );
  });
});
