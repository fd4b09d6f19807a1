import { describe, expect, it } from '@jest/globals';
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key.js';

describe('api keys', () => {
  it('are sk- plus 48 base62 characters', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('never repeat and use the whole alphabet', () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    const chars = new Set([...keys].join('').replaceAll('sk-', ''));
    expect(chars.size).toBe(62);
  });

  it('hash to 64 hex chars, deterministically', () => {
    const key = 'sk-' + 'a'.repeat(48);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toBe(hashApiKey('sk-' + 'b'.repeat(48)));
  });

  it('show only a display prefix', () => {
    expect(displayPrefix('sk-abcdEFGH' + 'x'.repeat(36) + 'wxyz')).toBe('sk-abcd...wxyz');
  });

  it.each([
    ['sk-short'],
    ['pk-' + 'a'.repeat(48)],
    ['sk-' + 'a'.repeat(47) + '!'],
    [' sk-' + 'a'.repeat(48)],
    [''],
  ])('reject the malformed key %p', (raw) => expect(isWellFormedApiKey(raw)).toBe(false));
});
