import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#libs/gateway-config';
import { redisKeys } from '#libs/redis';
import {
  admissionVerdict,
  admitCall,
  type AdmissionSubject,
  NO_LIMITS,
  secondsToNextWindow,
  settleCall,
} from './admission.js';
import { groupRateLimits, keyRateLimits } from './limits.js';

const keys = redisKeys('gw');
const U = '00000000-0000-4000-8000-00000000000a';
const K = '00000000-0000-4000-8000-00000000000b';
const subject: AdmissionSubject = {
  userId: U,
  keyId: K,
  group: 'free',
  keySpendLimitNanos: '5000',
  keyLimits: { rpm: 10, tpm: null },
  groupLimits: { rpm: null, tpm: 1000 },
};
// 2026-01-01T00:00:45.250Z: minute 29,446,560, 14.75 s before the next window.
const NOW = Date.UTC(2026, 0, 1, 0, 0, 45, 250);
const MINUTE = Math.floor(NOW / 60_000);

/** The Redis Cluster hash tag of a key: what decides its slot. */
const tagOf = (key: string): string => /\{([^}]+)\}/.exec(key)?.[1] ?? key;

describe('admission script arguments', () => {
  it('puts every key of a call in the user slot, counters in the current minute', () => {
    const call = admitCall(keys, subject, NOW);
    expect(new Set(call.keys.map(tagOf))).toEqual(new Set([U]));
    expect(call.keys).toEqual([
      `gw:quota:{${U}}:balance`,
      `gw:quota:{${U}}:key-spent`,
      `gw:rate:{${U}}:key:${K}:rpm:${MINUTE}`,
      `gw:rate:{${U}}:key:${K}:tpm:${MINUTE}`,
      `gw:rate:{${U}}:group:free:rpm:${MINUTE}`,
      `gw:rate:{${U}}:group:free:tpm:${MINUTE}`,
    ]);
    expect(call.args).toEqual([K, '5000', 10, 0, 0, 1000, 120, 0]);
  });

  it('passes no spend limit as an empty string and no rate limit as 0', () => {
    const call = admitCall(
      keys,
      { ...subject, keySpendLimitNanos: null, keyLimits: NO_LIMITS, groupLimits: NO_LIMITS },
      NOW,
    );
    expect(call.args).toEqual([K, '', 0, 0, 0, 0, 120, 0]);
  });

  it('settles a rounded, non-negative cost and counts tokens only where a tpm limit exists', () => {
    const call = settleCall(keys, subject, { requestId: 'req_1', costNanos: 12.6, tokens: 30 }, NOW);
    expect(new Set(call.keys.map(tagOf))).toEqual(new Set([U]));
    expect(call.keys[2]).toBe(`gw:quota:{${U}}:pending`);
    expect(call.args).toEqual(['req_1', 13, K, NOW, 30, 0, 1, 120, '']);
    expect(settleCall(keys, subject, { requestId: 'r', costNanos: -5, tokens: -1 }, NOW).args[1]).toBe(0);
  });
});

describe('admission verdicts', () => {
  it('maps script codes to reasons; rate limits wait for the next window, quota does not', () => {
    expect(admissionVerdict(0, NOW)).toEqual({ ok: true });
    expect(admissionVerdict(1, NOW)).toEqual({ ok: false, reason: 'not_loaded' });
    expect(admissionVerdict(2, NOW)).toEqual({ ok: false, reason: 'balance', retryAfterSeconds: null });
    expect(admissionVerdict(3, NOW)).toEqual({
      ok: false,
      reason: 'key_spend_limit',
      retryAfterSeconds: null,
    });
    expect(admissionVerdict(4, NOW)).toEqual({ ok: false, reason: 'key_rpm', retryAfterSeconds: 15 });
    expect(admissionVerdict(7, NOW)).toMatchObject({ reason: 'group_tpm' });
    expect(() => admissionVerdict(9, NOW)).toThrow(/returned 9/);
  });

  it('retry-after is whole seconds to the next minute, never 0', () => {
    expect(secondsToNextWindow(Date.UTC(2026, 0, 1, 0, 0, 0, 0))).toBe(60);
    expect(secondsToNextWindow(Date.UTC(2026, 0, 1, 0, 0, 59, 999))).toBe(1);
    expect(secondsToNextWindow(NOW)).toBe(15);
  });
});

describe('limits from config and keys', () => {
  const base = {
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m1', 'm2'] }],
    models: ['m1', 'm2'].map((id) => ({
      id,
      owned_by: 'x',
      created: 0,
      pricing: { input_per_million: 1, output_per_million: 1 },
    })),
  };

  it('accepts both group forms and keeps groups as model lists', () => {
    const cfg = parseConfig({
      ...base,
      groups: {
        default: ['m1'],
        free: { models: ['m1', 'm2'], limits: { rpm: 20, tpm: 5000 } },
        team: { models: ['m2'] },
      },
    });
    expect(cfg.groups).toEqual({ default: ['m1'], free: ['m1', 'm2'], team: ['m2'] });
    expect(groupRateLimits(cfg)).toEqual(new Map([['free', { rpm: 20, tpm: 5000 }]]));
    expect(cfg.quota).toEqual({
      reconcile_interval_ms: 60_000,
      pending_max_age_ms: 86_400_000,
      when_unavailable: 'admit',
    });
  });

  it('names the bad field of a group', () => {
    expect(() => parseConfig({ ...base, groups: { free: { models: ['m1'], limits: { rpm: 0 } } } })).toThrow(
      /groups\.free\.limits\.rpm|groups\.free: a list of model ids/,
    );
    expect(() => parseConfig({ ...base, groups: { free: { models: ['nope'] } } })).toThrow(
      /groups\.free\.models\[0\]: unknown model nope/,
    );
    expect(() => parseConfig({ ...base, groups: { free: { models: ['m1'], rpm: 3 } } })).toThrow(
      /groups\.free/,
    );
  });

  it('reads a key record without limit fields as unlimited', () => {
    expect(keyRateLimits({})).toBe(NO_LIMITS);
    expect(keyRateLimits({ rpmLimit: 5, tpmLimit: null })).toEqual({ rpm: 5, tpm: null });
  });
});
