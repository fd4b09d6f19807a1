import { describe, expect, it } from '@jest/globals';
import { type ApiKey } from '#libs/db';
import { keyView } from './key-view.js';

const row = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'k1',
  user_id: 'u1',
  name: 'ci',
  key_hash: 'a'.repeat(64),
  display_prefix: 'sk-abcd...wxyz',
  group_name: 'default',
  status: 'active',
  expires_at: null,
  spend_limit_nanos: null,
  spent_nanos: '1500000000',
  created_at: new Date('2026-01-01T00:00:00Z'),
  last_used_at: null,
  revoked_at: null,
  rpm_limit: null,
  tpm_limit: null,
  team_id: null,
  ...over,
});

describe('key view', () => {
  it('shows the display prefix, never the hash, and credits as decimals', () => {
    const view = keyView(row({ spend_limit_nanos: '10000000000' }));
    expect(view).toEqual({
      id: 'k1',
      name: 'ci',
      displayPrefix: 'sk-abcd...wxyz',
      group: 'default',
      status: 'active',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
      expiresAt: null,
      spendLimitCredits: 10,
      spentCredits: 1.5,
      rpmLimit: null,
      tpmLimit: null,
      teamId: null,
    });
    expect(JSON.stringify(view)).not.toContain('aaaa');
  });

  it('calls an active key past its expiry expired, and a revoked one revoked', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    expect(keyView(row({ expires_at: new Date('2026-01-15T00:00:00Z') }), now).status).toBe('expired');
    expect(keyView(row({ expires_at: new Date('2026-03-01T00:00:00Z') }), now).status).toBe('active');
    expect(keyView(row({ status: 'revoked' }), now).status).toBe('revoked');
  });
});
