import { connect } from 'node:net';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Host and port of a service URL such as `postgres://user@db:5432/gateway`. */
export function hostPortOf(url: string, defaultPort: number): HostPort {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(parsed.port) || defaultPort,
  };
}

/** Where to reach a server bound to `host` from this machine: wildcard binds answer on loopback. */
export function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** `host:port` as it goes into a URL (IPv6 literals in brackets). */
export function urlAuthority(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function tcpReachable({ host, port }: HostPort, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

export async function httpOk(url: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Polls `check` until it holds (true), `timeoutMs` passes or `cancelled()` says stop (false). */
export async function waitUntil(
  check: () => Promise<boolean>,
  {
    timeoutMs,
    intervalMs = 250,
    cancelled = () => false,
  }: { timeoutMs: number; intervalMs?: number; cancelled?: () => boolean },
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cancelled() && Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return false;
}

/** Whether the console has its first admin, as its public GET /api/setup/status says. */
export async function adminState(
  consoleUrl: string,
  timeoutMs = 2000,
): Promise<'exists' | 'missing' | 'unknown'> {
  try {
    const res = await fetch(`${consoleUrl}/api/setup/status`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return 'unknown';
    }
    const body = (await res.json()) as { needed?: unknown };
    return body.needed === true ? 'missing' : body.needed === false ? 'exists' : 'unknown';
  } catch {
    return 'unknown';
  }
}
