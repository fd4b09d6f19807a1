import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { QueueKeys } from 'bullmq';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import {
  admitCall,
  type AdmissionSubject,
  type Budget,
  budgetCounters,
  leaseCall,
  NO_LIMITS,
  settleCall,
} from '#libs/quota';
import { hashSlot, type RedisKeys, redisKeys } from '#libs/redis';
import { repoPath, repoRoot } from './repo.js';

/**
 * Redis Cluster runs a Lua script or a MULTI only when all its keys sit in one hash slot. This file
 * audits every such call site in the gateway: each entry names the site and builds the keys the
 * site passes, with the same key builders; a source scan fails when a site appears that this list
 * does not cover, so a new script is audited before it ships.
 */
const keys = redisKeys('gw-prod');
const USER_ID = '5b0f1c2e-7d4a-4a51-9d0e-3f6b8e9a1c22';
const KEY_ID = 'a8c6e2d4-1b3f-4e5a-8c7d-9e0f1a2b3c4d';
const budget = (id: string, over: Partial<Budget>): Budget => ({
  id,
  keyId: null,
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '5000000000',
  modelGroup: null,
  models: null,
  ...over,
});
/** One budget of each window shape: a key's calendar day, the user's rolling week (24 counters), a lifetime. */
const BUDGETS: readonly Budget[] = [
  budget('0d7c3b1e-6a2f-4c8d-9e1b-2f3a4b5c6d7e', { keyId: KEY_ID }),
  budget('1e8d4c2f-7b3a-4d9e-8f2c-3a4b5c6d7e8f', { period: 'week', window: 'rolling' }),
  budget('2f9e5d3a-8c4b-4e1f-9a3d-4b5c6d7e8f9a', { period: 'lifetime', modelGroup: 'default' }),
];
const subject: AdmissionSubject = {
  userId: USER_ID,
  keyId: KEY_ID,
  group: 'default',
  keySpendLimitNanos: null,
  keyLimits: NO_LIMITS,
  groupLimits: NO_LIMITS,
  budgets: BUDGETS,
};
/** The same key as a team's: the team pays, so every key of the scripts is in the team's slot. */
const teamSubject: AdmissionSubject = {
  ...subject,
  accountId: 'team:7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  keyLimits: { rpm: 60, tpm: 100_000 },
  groupLimits: { rpm: 600, tpm: 1_000_000 },
};
const NOW = Date.UTC(2026, 10, 22, 12, 34, 56);
const LEASE = {
  leaseId: 'edge-1:lease-1',
  wantNanos: null,
  expiresAtMs: NOW + 10_000,
  graceMs: 2_000,
  share: 4,
};
const minute = Math.floor(NOW / 60_000);

/** The keys ADMIT, SETTLE and REBUILD pass for `subject`, built with `k`. */
const quotaScriptKeys = (k: RedisKeys) => ({
  admit: admitCall(k, subject, NOW).keys,
  settle: settleCall(k, subject, { requestId: 'req_1', costNanos: 5, tokens: 3 }, NOW).keys,
  rebuild: [
    k.quotaBalance(USER_ID),
    k.quotaKeySpent(USER_ID),
    k.quotaPending(USER_ID),
    ...BUDGETS.flatMap((b) => budgetCounters(k, USER_ID, b, new Map(), NOW).map((c) => c.key)),
  ],
});
const quota = quotaScriptKeys(keys);
/** Every budget counter the scripts touch at NOW, by the key builder. */
const budgetKeys = BUDGETS.flatMap((b) => budgetCounters(keys, USER_ID, b, new Map(), NOW).map((c) => c.key));
const oneSlot = (keySet: readonly string[]): boolean => new Set(keySet.map(hashSlot)).size === 1;

/** The call sites, by file, with the key sets their scripts / MULTIs touch. */
const AUDIT: Record<string, Record<string, readonly string[]>> = {
  'libs/quota/src/scripts.ts': {
    // runScript itself: the key sets are those of its callers below.
  },
  'libs/quota/src/quota.store.ts': {
    'ADMIT (edge admission, budget counters included)': quota.admit,
    'SETTLE (edge settlement, budget counters included)': quota.settle,
  },
  'libs/quota/src/rebuild.ts': {
    'REBUILD (worker reconciliation, budget counters included)': quota.rebuild,
    "REBUILD_THEN_LEASE (an edge's cold account: load and first lease in one call)": [
      ...quota.rebuild,
      ...leaseCall(keys, subject, LEASE, NOW).keys,
    ],
    'REBUILD_THEN_LEASE of a team key (the team slot)': [
      keys.quotaBalance(teamSubject.accountId!),
      keys.quotaKeySpent(teamSubject.accountId!),
      keys.quotaPending(teamSubject.accountId!),
      ...leaseCall(keys, teamSubject, LEASE, NOW).keys,
    ],
  },
  'libs/quota/src/grants.ts': { 'ADD_IF_LOADED (console grant)': [keys.quotaBalance(subject.userId)] },
  'libs/quota/src/leases.ts': {
    'SETTLE_THEN_LEASE (settles, then a lease granted or handed back)': [
      ...quota.settle,
      ...leaseCall(keys, subject, LEASE, NOW).keys,
    ],
    'SETTLE_THEN_LEASE of a team key (rate limits and budgets in the team slot too)': [
      ...settleCall(keys, teamSubject, { requestId: 'req_1', costNanos: 5, tokens: 3 }, NOW).keys,
      ...admitCall(keys, teamSubject, NOW).keys,
      ...leaseCall(keys, teamSubject, LEASE, NOW).keys,
    ],
  },
  'libs/routing-stores/src/provider-limits.store.ts': {
    'ACQUIRE (provider concurrency + rpm)': [
      keys.providerInflight('openai'),
      keys.providerRpm('openai', minute),
    ],
  },
  'libs/routing-stores/src/routes.store.ts': {
    'MULTI SET routes + PUBLISH (channels are not keys)': [keys.routes],
  },
  'libs/auth/src/key-invalidation.ts': {
    'MULTI INCR generation + DEL key + PUBLISH': [
      keys.apiKeyGeneration('ab'.repeat(32)),
      keys.apiKey('ab'.repeat(32)),
    ],
  },
  'libs/auth/src/key-cache.store.ts': {
    'MGET key + generation, FILL_IF_GENERATION': [
      keys.apiKey('ab'.repeat(32)),
      keys.apiKeyGeneration('ab'.repeat(32)),
    ],
  },
  'apps/router/src/leader/leader-lease.ts': {
    'EXTEND_IF_OWNER / DELETE_IF_OWNER': [keys.routerLeader],
  },
  'apps/router/src/routes/routes.store.ts': { NEXT_VERSION: [keys.routesVersion] },
  'apps/console/src/auth/sign-in-throttle.store.ts': {
    'MULTI INCR + PEXPIRE': [keys.consoleSignInFailures('ip', '203.0.113.9')],
  },
  'apps/console/src/auth/oidc/oidc-pending.store.ts': {
    TAKE_IF_BOUND: [keys.consoleOidcPending('ab'.repeat(32))],
  },
  'apps/console/src/config/provider-test-throttle.store.ts': {
    'MULTI INCR + PEXPIRE + PTTL': [keys.consoleProviderTests('user:5b0f1c2e-7d4a-4a51-9d0e-3f6b8e9a1c22')],
  },
};

const SITE = /\.(eval|evalsha|multi|defineCommand)\(|\brunScript\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('Redis Cluster: one hash slot per script and MULTI', () => {
  it('every file calling EVAL, EVALSHA, MULTI or a Lua helper is in the audit', () => {
    const sites = ['apps', 'libs']
      .flatMap((dir) => sourceFiles(repoPath(dir)))
      .filter((file) => SITE.test(readFileSync(file, 'utf8')))
      .map((file) => relative(repoRoot, file));
    expect(sites.sort()).toEqual(Object.keys(AUDIT).sort());
  });

  const cases = Object.entries(AUDIT).flatMap(([file, scripts]) =>
    Object.entries(scripts).map(([name, keySet]) => [`${file}: ${name}`, keySet] as const),
  );
  it.each(cases)('%s', (_name, keySet) => {
    expect(keySet.length).toBeGreaterThan(0);
    const slots = new Set(keySet.map(hashSlot));
    expect({ keySet, slots: slots.size }).toEqual({ keySet, slots: 1 });
  });

  it('the quota scripts pass every budget counter of the windows (so the slot check covers them)', () => {
    expect(budgetKeys).toHaveLength(1 + 24 + 1);
    expect(quota.admit).toEqual(expect.arrayContaining(budgetKeys));
    expect(quota.rebuild).toEqual(expect.arrayContaining(budgetKeys));
    // SETTLE adds the cost to one bucket per budget: the one holding the request's start.
    expect(quota.settle.filter((k) => budgetKeys.includes(k))).toHaveLength(BUDGETS.length);
  });

  it("a budget counter without the user's hash tag would fail the audit", () => {
    const untagged: RedisKeys = {
      ...keys,
      quotaBudgetSpent: (userId, budgetId, bucketMs) =>
        `gw-prod:quota:${userId}:budget:${budgetId}:${bucketMs}`,
    };
    const broken = quotaScriptKeys(untagged);
    expect([oneSlot(broken.admit), oneSlot(broken.settle), oneSlot(broken.rebuild)]).toEqual([
      false,
      false,
      false,
    ]);
    expect([oneSlot(quota.admit), oneSlot(quota.settle), oneSlot(quota.rebuild)]).toEqual([true, true, true]);
  });

  it("BullMQ's keys for the request-log queue, jobs included, share one slot", () => {
    const queue = new QueueKeys(keys.bullPrefix).getKeys(REQUEST_LOG_QUEUE);
    const job = `${keys.bullPrefix}:${REQUEST_LOG_QUEUE}:logs_req_0123456789abcdef_500`;
    const all = [...Object.values(queue), job, `${job}:lock`, `${job}:logs`];
    expect(new Set(all.map(hashSlot))).toEqual(new Set([hashSlot(keys.bullPrefix)]));
  });

  it('keys of different users or providers spread over slots (tags are per subject, not global)', () => {
    const users = Array.from({ length: 50 }, (_, i) => hashSlot(keys.quotaBalance(`user-${i}`)));
    expect(new Set(users).size).toBeGreaterThan(40);
  });
});
