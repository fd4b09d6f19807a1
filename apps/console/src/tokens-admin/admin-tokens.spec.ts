import { describe, expect, it } from '@jest/globals';
import { type AdminToken } from '#libs/db';
import {
  adminTokenHash,
  isAdminTokenLike,
  isWellFormedAdminToken,
  newAdminTokenSecret,
} from './admin-token-secret.js';
import { adminTokenView, tokenState } from './admin-token-view.js';
import { createAdminTokenSchema } from './admin-tokens.schema.js';
import { checkToken } from './admin-tokens.service.js';

const NOW = new Date('2026-11-26T12:00:00.000Z');
const row = (over: Partial<AdminToken> = {}): AdminToken => ({
  id: 'tok-1',
  name: 'deploy bot',
  role: 'operator',
  token_hash: 'h',
  display_prefix: 'gwa_abcdef',
  created_by_user: null,
  created_by: 'admin token',
  created_at: new Date('2026-11-01T00:00:00.000Z'),
  expires_at: new Date('2026-12-01T00:00:00.000Z'),
  revoked_at: null,
  last_used_at: null,
  ...over,
});

describe('admin token secrets', () => {
  it('are gwa_ and 32 random bytes, hashed with SHA-256, shown by a 10-character prefix', () => {
    const a = newAdminTokenSecret();
    const b = newAdminTokenSecret();
    expect(a.secret).toMatch(/^gwa_[\w-]{43}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(a.hash).toBe(adminTokenHash(a.secret));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.displayPrefix).toBe(a.secret.slice(0, 10));
    expect(isWellFormedAdminToken(a.secret)).toBe(true);
    expect(isWellFormedAdminToken('gwa_short')).toBe(false);
    expect(isAdminTokenLike('gwa_short')).toBe(true);
    expect(isAdminTokenLike('some-env-token')).toBe(false);
  });
});

describe('checkToken', () => {
  it('accepts an active token as its role', () => {
    expect(checkToken(row(), NOW)).toEqual({
      ok: true,
      identity: { id: 'tok-1', name: 'deploy bot', role: 'operator' },
    });
  });

  it('refuses an unknown, an expired (at the very instant) and a revoked token, naming the known ones', () => {
    expect(checkToken(undefined, NOW)).toEqual({ ok: false, reason: 'unknown admin token', token: null });
    expect(checkToken(row({ expires_at: NOW }), NOW)).toEqual({
      ok: false,
      reason: 'admin token expired at 2026-11-26T12:00:00.000Z',
      token: { id: 'tok-1', name: 'deploy bot' },
    });
    // Revoked wins over expired: it says someone acted.
    expect(checkToken(row({ revoked_at: NOW, expires_at: new Date(0) }), NOW)).toMatchObject({
      ok: false,
      reason: 'revoked admin token',
    });
  });

  it('the view never carries the hash', () => {
    const view = adminTokenView(row({ last_used_at: NOW }), NOW);
    expect(view).toMatchObject({
      state: 'active',
      lastUsedAt: NOW.toISOString(),
      displayPrefix: 'gwa_abcdef',
    });
    expect(JSON.stringify(view)).not.toContain('token_hash');
    expect(tokenState(row({ expires_at: new Date('2026-11-26T11:59:59.999Z') }), NOW)).toBe('expired');
  });
});

describe('createAdminTokenSchema', () => {
  const parse = (v: unknown) => createAdminTokenSchema.safeParse(v);
  it('takes a name, a token role and whole days from 1 to 366', () => {
    expect(parse({ name: ' ci ', role: 'auditor', expiresInDays: 366 }).data).toEqual({
      name: 'ci',
      role: 'auditor',
      expiresInDays: 366,
    });
    for (const bad of [
      { name: 'ci', role: 'auditor', expiresInDays: 367 },
      { name: 'ci', role: 'auditor', expiresInDays: 1.5 },
      { name: 'ci', role: 'auditor' },
      { name: 'ci', role: 'member', expiresInDays: 1 },
      { name: 'admin TOKEN', role: 'admin', expiresInDays: 1 },
      { name: 'ci', role: 'admin', expiresInDays: 1, scopes: ['x'] },
    ])
      expect(parse(bad).success).toBe(false);
  });
});
