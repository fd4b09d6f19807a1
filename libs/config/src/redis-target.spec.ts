import { describe, expect, it } from '@jest/globals';
import { readEnv } from './env.js';
import { clusterSeeds, redisTarget } from './redis-target.js';

describe('redisTarget', () => {
  it('takes one server unless REDIS_CLUSTER is on', () => {
    expect(redisTarget('redis://cache:6380/2', undefined)).toEqual({
      url: 'redis://cache:6380/2',
      cluster: false,
    });
    expect(redisTarget('redis://a:7000,redis://b:7000', 'true').cluster).toBe(true);
    expect(readEnv({ REDIS_URL: 'redis://a:7000', REDIS_CLUSTER: 'yes' }).redis.cluster).toBe(true);
  });

  it('refuses what would connect somewhere unintended', () => {
    expect(() => redisTarget('redis://a:7000,redis://b:7000', undefined)).toThrow(/REDIS_CLUSTER=true/);
    expect(() => redisTarget('redis://a', 'cluster')).toThrow(/REDIS_CLUSTER must be true or false/);
    expect(() => redisTarget('http://a:6379', undefined)).toThrow(/not redis/);
    expect(() => redisTarget('not a url', 'false')).toThrow(/is not a URL/);
    expect(() => redisTarget('redis://a:7000/3', 'true')).toThrow(/only database 0/);
    expect(() => redisTarget('rediss://a:7000,redis://b:7000', 'true')).toThrow(/mix/);
  });

  it('never echoes a password in its errors', () => {
    for (const [url, cluster] of [
      ['redis://u:hunter2@a:99999', undefined],
      ['redis://a:7000,redis://:hunter2@b:99999', 'true'],
    ] as const) {
      expect(() => redisTarget(url, cluster)).toThrow(/^REDIS_URL: "redis:\/\/\*\*\*@/);
    }
  });
});

describe('clusterSeeds', () => {
  it('lists the seed nodes with the credentials and TLS they share', () => {
    expect(clusterSeeds(' rediss://a:7000, rediss://default:p%40ss@b , rediss://[::1]:7002')).toEqual({
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      username: 'default',
      password: 'p@ss',
      tls: true,
    });
    expect(clusterSeeds('redis://a:7000')).toEqual({
      nodes: [{ host: 'a', port: 7000 }],
      username: undefined,
      password: undefined,
      tls: false,
    });
  });
});
