import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';
import { type Catalog, type GatewayConfig, type ProviderRuntime } from '#libs/config';
import { CATALOG, CONFIG } from '../tokens.js';

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
  private readonly pools = new Map<string, { pool: Pool; basePath: string }>();
  private readonly headersTimeout: number;
  private readonly bodyTimeout: number;

  constructor(@Inject(CATALOG) catalog: Catalog, @Inject(CONFIG) config: GatewayConfig) {
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
      this.pools.set(provider.id, { pool, basePath: url.pathname === '/' ? '' : url.pathname });
    }
  }

  post(req: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const entry = this.pools.get(req.provider.id);
    if (!entry) throw new Error(`no pool for provider ${req.provider.id}`);
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
