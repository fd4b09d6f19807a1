import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../../test/support/redis.js';
import { OidcPendingStore, type PendingSignIn, sha256 } from './oidc-pending.store.js';

// The pending sign-ins against a real Redis: the browser check and the delete are one script.

const prefix = uniqueRedisPrefix('oidc-pending');
let redis: RedisClient;
let store: OidcPendingStore;

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL, { name: 'oidc-pending-test' });
  store = new OidcPendingStore(redis, redisKeys(prefix));
});

afterAll(async () => {
  redis?.disconnect();
  await dropRedisPrefix(prefix);
});

const signIn = (binding: string): PendingSignIn => ({
  codeVerifier: 'verifier',
  nonce: 'nonce',
  browserHash: sha256(binding),
  next: '/usage',
});

describe('OidcPendingStore.take', () => {
  it('another browser, or none, is refused and leaves the sign-in; its own browser then takes it once', async () => {
    await store.put('state-1', signIn('binding-1'), 60_000);
    expect(await store.take('state-1', 'binding-2')).toEqual({ outcome: 'another-browser' });
    expect(await store.take('state-1', undefined)).toEqual({ outcome: 'another-browser' });
    expect(await store.take('state-1', '')).toEqual({ outcome: 'another-browser' });
    expect(await store.take('state-1', 'binding-1')).toEqual({
      outcome: 'taken',
      pending: signIn('binding-1'),
    });
    expect(await store.take('state-1', 'binding-1')).toEqual({ outcome: 'unknown' });
    expect(await store.take('state-1', 'binding-2')).toEqual({ outcome: 'unknown' });
  });

  it('an unknown state is unknown, with a cookie or without', async () => {
    expect(await store.take('never-issued', 'binding-1')).toEqual({ outcome: 'unknown' });
    expect(await store.take('never-issued', undefined)).toEqual({ outcome: 'unknown' });
  });

  it('callbacks racing with one state: the forged ones change nothing, exactly one genuine takes it', async () => {
    await store.put('state-2', signIn('binding-1'), 60_000);
    // Sent at once on one connection, so Redis runs them in this order.
    const bindings = ['forged', 'forged', 'binding-1', 'binding-1', 'forged', 'binding-1'];
    const answers = await Promise.all(bindings.map((b) => store.take('state-2', b)));
    expect(answers.map((a) => a.outcome)).toEqual([
      'another-browser',
      'another-browser',
      'taken',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });
});
