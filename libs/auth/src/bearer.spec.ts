import { describe, expect, it } from '@jest/globals';
import { bearerToken } from './bearer.js';

describe('bearerToken', () => {
  it('reads the scheme in any case', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR'])
      expect(bearerToken(`${scheme} sk-1`)).toBe('sk-1');
  });

  it('takes one token after one or more spaces', () => {
    expect(bearerToken('Bearer  sk-1')).toBe('sk-1');
    expect(bearerToken('Bearer sk-1 sk-2')).toBeNull();
  });

  it('refuses other schemes and a missing token', () => {
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken('Bearer ')).toBeNull();
    expect(bearerToken('Bearersk-1')).toBeNull();
  });
});
