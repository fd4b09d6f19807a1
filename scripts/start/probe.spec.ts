import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { hostPortOf, loopbackFor, tcpReachable, urlAuthority, waitUntil } from './probe.js';

describe('URLs', () => {
  it('finds host and port, with the default port when none is given', () => {
    expect(hostPortOf('postgres://u:p@db.local:5433/gateway', 5432)).toEqual({
      host: 'db.local',
      port: 5433,
    });
    expect(hostPortOf('redis://127.0.0.1', 6379)).toEqual({ host: '127.0.0.1', port: 6379 });
    expect(hostPortOf('redis://[::1]:6380', 6379)).toEqual({ host: '::1', port: 6380 });
  });

  it('probes wildcard binds on loopback and brackets IPv6 in URLs', () => {
    expect(loopbackFor('0.0.0.0')).toBe('127.0.0.1');
    expect(loopbackFor('::')).toBe('::1');
    expect(loopbackFor('127.0.0.1')).toBe('127.0.0.1');
    expect(urlAuthority('::1', 8080)).toBe('[::1]:8080');
    expect(urlAuthority('127.0.0.1', 8080)).toBe('127.0.0.1:8080');
  });
});

describe('tcpReachable', () => {
  it('is true while something listens and false once it is gone', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    expect(await tcpReachable({ host: '127.0.0.1', port })).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(await tcpReachable({ host: '127.0.0.1', port })).toBe(false);
  });
});

describe('waitUntil', () => {
  it('polls until the check holds', async () => {
    let calls = 0;
    expect(await waitUntil(async () => ++calls === 3, { timeoutMs: 1000, intervalMs: 1 })).toBe(true);
    expect(calls).toBe(3);
  });

  it('gives up at the deadline or when cancelled', async () => {
    expect(await waitUntil(async () => false, { timeoutMs: 20, intervalMs: 5 })).toBe(false);
    expect(await waitUntil(async () => true, { timeoutMs: 1000, cancelled: () => true })).toBe(false);
  });
});
