import { describe, expect, it } from '@jest/globals';
import { readiness, type ReadinessInputs } from './readiness.js';

const up: ReadinessInputs = {
  redis: true,
  logsQueued: true,
  routes: { source: 'router', version: 3, ageMs: 10, stale: false },
  whenUnavailable: 'admit',
};

describe('readiness', () => {
  it('with Redis: ready, everything served normally', () => {
    expect(readiness(up)).toEqual({
      ready: true,
      redis: true,
      keys: 'cache and postgres',
      routes: up.routes,
      quota: 'enforced',
      logs: 'queued',
    });
  });

  it('without Redis, admitting: still ready, saying what it serves from where', () => {
    const routes = { source: 'config', version: 0, ageMs: null, stale: false } as const;
    expect(readiness({ ...up, redis: false, logsQueued: false, routes })).toEqual({
      ready: true,
      redis: false,
      keys: 'memory and postgres',
      routes,
      quota: 'admitted unchecked',
      logs: 'held and spooled',
    });
  });

  it('without Redis, logs are held and spooled even before the log queue has noticed', () => {
    // The probe of issue 19 read "logs":"queued" next to "redis":false: no flush had failed yet.
    expect(readiness({ ...up, redis: false, logsQueued: true })).toMatchObject({
      redis: false,
      logs: 'held and spooled',
    });
  });

  it('without Redis under quota.when_unavailable refuse: not ready (every model request would be refused)', () => {
    expect(readiness({ ...up, redis: false, whenUnavailable: 'refuse' })).toMatchObject({
      ready: false,
      quota: 'refused',
    });
    expect(readiness({ ...up, whenUnavailable: 'refuse' })).toMatchObject({ ready: true, quota: 'enforced' });
  });
});
