import { describe, expect, it } from '@jest/globals';
import { type AdmissionSubject, type Budget, NO_LIMITS } from '#libs/quota';
import { Lease, LeaseBook, leaseEnd, leaseIdentity } from './lease-book.js';

const subject = (extra: Partial<AdmissionSubject> = {}): AdmissionSubject => ({
  userId: 'u',
  keyId: 'k',
  group: 'default',
  keySpendLimitNanos: null,
  keyLimits: NO_LIMITS,
  groupLimits: NO_LIMITS,
  ...extra,
});

const budget = (extra: Partial<Budget> = {}): Budget => ({
  id: 'b1',
  keyId: null,
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '1000',
  modelGroup: null,
  models: null,
  ...extra,
});

describe('lease identity', () => {
  it('changes with the key, its spend limit, and each budget or its limit', () => {
    const base = leaseIdentity(subject({ budgets: [budget()] }));
    expect(leaseIdentity(subject({ budgets: [budget()] }))).toBe(base);
    expect(leaseIdentity(subject({ keyId: 'k2', budgets: [budget()] }))).not.toBe(base);
    expect(leaseIdentity(subject({ keySpendLimitNanos: '5', budgets: [budget()] }))).not.toBe(base);
    expect(leaseIdentity(subject({ budgets: [budget({ limitNanos: '2000' })] }))).not.toBe(base);
    expect(leaseIdentity(subject())).not.toBe(base);
  });
});

describe('lease end', () => {
  const now = Date.parse('2026-11-25T23:59:55Z');

  it('is the TTL without budgets, and never past a calendar window of a budget', () => {
    expect(leaseEnd(now, 10_000, [])).toBe(now + 10_000);
    expect(leaseEnd(now, 10_000, [budget()])).toBe(Date.parse('2026-11-26T00:00:00Z'));
    expect(leaseEnd(now, 1_000, [budget()])).toBe(now + 1_000);
  });

  it("ends at a rolling window's current bucket and ignores lifetime budgets", () => {
    const rollingHourEnd = Date.parse('2026-11-26T00:00:00Z'); // day buckets are one hour
    expect(leaseEnd(now, 10_000, [budget({ window: 'rolling' })])).toBe(rollingHourEnd);
    expect(leaseEnd(now, 10_000, [budget({ period: 'lifetime' })])).toBe(now + 10_000);
  });
});

describe('a lease', () => {
  it('admits while positive and before its end; low below half or in its last third', () => {
    const l = new Lease('id', 'u', 'k||', 0);
    expect(l.usable(0)).toBe(false); // nothing granted yet
    l.applyGrant(1000, 0, 9000, 0);
    expect(l.usable(0)).toBe(true);
    expect(l.low(0, 9000)).toBe(false);
    l.settle(600);
    expect(l.low(0, 9000)).toBe(true);
    l.settle(400);
    expect(l.usable(1)).toBe(false);
    l.applyGrant(1000, l.spent, 9000, 0);
    expect(l.low(6001, 9000)).toBe(true); // 2,999 ms left of 9,000
    expect(l.usable(9000)).toBe(false);
  });

  it('takes off a renewal what settled while it was on the wire', () => {
    const l = new Lease('id', 'u', 'k||', 0);
    l.applyGrant(1000, 0, 10_000, 0);
    const asked = l.spent;
    l.settle(300); // finishes while the renewal is on its way
    l.applyGrant(800, asked, 10_000, 10);
    expect(l.remaining).toBe(500);
  });

  it("asks for the horizon's worth of its spend rate, at least four requests; nothing before any spend", () => {
    const l = new Lease('id', 'u', 'k||', 0);
    expect(l.want(1000, 2000)).toBeNull();
    l.applyGrant(1000, 0, 10_000, 0);
    l.settle(100);
    l.settle(100);
    expect(l.want(100, 2000)).toBe(4000); // 200 per 100 ms, for 2 s
    expect(l.want(10_000, 2000)).toBe(400); // a slow key: four of its largest request
  });
});

describe('the lease book', () => {
  it('counts its leases, replaces one of the same identity and finds idle or ended ones', () => {
    const book = new LeaseBook('edge');
    const a = book.open('u', 'x', 0);
    const b = book.open('u', 'y', 0);
    expect(book.size).toBe(2);
    expect(a.id).not.toBe(b.id);
    const a2 = book.open('u', 'x', 0);
    expect(a.closed).toBe(true);
    expect(book.size).toBe(2);
    a2.applyGrant(10, 0, 100_000, 0);
    b.applyGrant(10, 0, 50, 0);
    a2.lastUsedMs = 90;
    expect(book.idle(100, 50)).toEqual(new Map([['u', [b]]])); // b ended at 50; a2 used at 90
    expect(book.idle(200, 50)).toEqual(new Map([['u', [a2, b]]]));
    a2.renewing = Promise.resolve();
    expect(book.idle(200, 50)).toEqual(new Map([['u', [b]]])); // a renewal on the wire stays
    book.drop(b);
    book.drop(b);
    expect(book.size).toBe(1);
    expect(book.find('u', 'y')).toBeUndefined();
    expect([...book.all().values()].flat()).toEqual([a2]);
  });
});
