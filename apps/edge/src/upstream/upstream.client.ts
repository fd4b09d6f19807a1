import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';
import { type Catalog, type GatewayConfig, type ProviderRuntime } from '#libs/config';
import { type ProviderCredentials, type UpstreamAuth } from '#libs/credentials';
import { CATALOG, CONFIG, CREDENTIALS } from '../tokens.js';

interface PoolEntry {
  readonly pool: Pool;
  readonly origin: string;
  readonly basePath: string;
  /** The provider's credential beyond its static key; null for most. */
  readonly auth: UpstreamAuth | null;
}

export interface UpstreamRequest {
  readonly provider: ProviderRuntime;
  /** Path relative to the provider's base URL, e.g. /chat/completions. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
  readonly signal: AbortSignal;
}

/**
 * One keep-alive connection pool per provider, created at boot: no per-request connection setup.
 * Timeouts per phase come from `routing`: connect, first byte (until the response headers) and the
 * idle gap between body chunks; the total deadline is the caller's signal.
 */
@Injectable()
export class UpstreamClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly headersTimeout: number;
  private readonly bodyTimeout: number;

  constructor(
    @Inject(CATALOG) catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(CREDENTIALS) credentials: ProviderCredentials,
  ) {
    const r = config.routing;
    this.headersTimeout = r.first_byte_timeout_ms;
    this.bodyTimeout = r.idle_timeout_ms;
    for (const provider of catalog.providers.values()) {
      const url = new URL(provider.base_url);
      const pool = new Pool(url.origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: r.connect_timeout_ms },
        // undici 8 speaks HTTP/2 to any TLS vendor that offers it (ALPN); the pool sizing above,
        // the per-request timeouts and the headers we forward are those of HTTP/1.1, kept explicitly.
        allowH2: false,
      });
      this.pools.set(provider.id, {
        pool,
        origin: url.origin,
        basePath: url.pathname === '/' ? '' : url.pathname,
        auth: credentials.get(provider.id),
      });
    }
  }

  /**
   * Sends one attempt. A provider with a static key (its adapter wrote it) goes straight out; one
   * with a credential gets its auth headers first: synchronously from a cached token, or awaited
   * (a signature, the first token). No valid credential rejects with `CredentialUnavailableError`.
   */
  post(req: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const entry = this.pools.get(req.provider.id);
    if (!entry) throw new Error(`no pool for provider ${req.provider.id}`);
    if (entry.auth === null) return this.send(entry, req);
    let auth: ReturnType<UpstreamAuth['headers']>;
    try {
      auth = entry.auth.headers({
        method: 'POST',
        url: entry.origin + entry.basePath + req.path,
        headers: req.headers,
        body: req.body,
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (!(auth instanceof Promise)) return this.send(entry, req, auth);
    return auth.then((headers) => this.send(entry, req, headers));
  }

  private send(
    entry: PoolEntry,
    req: UpstreamRequest,
    auth?: Readonly<Record<string, string>>,
  ): Promise<Dispatcher.ResponseData> {
    // The attempt's headers are its own object (built per attempt): adding the auth is safe.
    if (auth !== undefined) Object.assign(req.headers, auth);
    return entry.pool.request({
      method: 'POST',
      path: entry.basePath + req.path,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      headersTimeout: this.headersTimeout,
      bodyTimeout: this.bodyTimeout,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.close()));
  }
}
