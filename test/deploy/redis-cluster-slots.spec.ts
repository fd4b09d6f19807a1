import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { QueueKeys } from 'bullmq';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { admitCall, type AdmissionSubject, NO_LIMITS, settleCall } from '#libs/quota';
import { hashSlot, redisKeys } from '#libs/redis';
import { repoPath, repoRoot } from './repo.js';

/**
 * Redis Cluster runs a Lua script or a MULTI only when all its keys sit in one hash slot. This file
 * audits every such call site in the gateway: each entry names the site and builds the keys the
 * site passes, with the same key builders; a source scan fails when a site appears that this list
 * does not cover, so a new script is audited before it ships.
 */
const keys = redisKeys('gw-prod');
const subject: AdmissionSubject = {
  userId: '5b0f1c2e-7d4a-4a51-9d0e-3f6b8e9a1c22',
  keyId: 'a8c6e2d4-1b3f-4e5a-8c7d-9e0f1a2b3c4d',
  group: 'default',
  keySpendLimitNanos: null,
  keyLimits: NO_LIMITS,
  groupLimits: NO_LIMITS,
};
const NOW = Date.UTC(2026, 10, 22, 12, 34, 56);
const minute = Math.floor(NOW / 60_000);

/** The call sites, by file, with the key sets their scripts / MULTIs touch. */
const AUDIT: Record<string, Record<string, readonly string[]>> = {
  'libs/quota/src/scripts.ts': {
    // runScript itself: the key sets are those of its callers below.
  },
  'libs/quota/src/quota.store.ts': {
    'ADMIT (edge admission)': admitCall(keys, subject, NOW).keys,
    'SETTLE (edge settlement)': settleCall(
      keys,
      subject,
      { requestId: 'req_1', costNanos: 5, tokens: 3 },
      NOW,
    ).keys,
  },
  'libs/quota/src/rebuild.ts': {
    'REBUILD (worker reconciliation)': [
      keys.quotaBalance(subject.userId),
      keys.quotaKeySpent(subject.userId),
      keys.quotaPending(subject.userId),
    ],
  },
  'libs/quota/src/grants.ts': { 'ADD_IF_LOADED (console grant)': [keys.quotaBalance(subject.userId)] },
  'libs/routing/src/provider-limits.store.ts': {
    'ACQUIRE (provider concurrency + rpm)': [
      keys.providerInflight('openai'),
      keys.providerRpm('openai', minute),
    ],
  },
  'libs/routing/src/routes.store.ts': { 'MULTI SET routes + PUBLISH (channels are not keys)': [keys.routes] },
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
