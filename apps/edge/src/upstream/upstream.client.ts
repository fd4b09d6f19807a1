import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';
import { type Catalog, type ProviderRuntime } from '#libs/config';
import { CATALOG } from '../tokens.js';

export interface UpstreamRequest {
  readonly provider: ProviderRuntime;
  /** Path relative to the provider's base URL, e.g. /chat/completions. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
  readonly signal: AbortSignal;
}

/** Generation can take minutes before the first byte; issue-level timeouts tighten this per route. */
const HEADERS_TIMEOUT_MS = 300_000;
const BODY_TIMEOUT_MS = 300_000;

/** One keep-alive connection pool per provider, created at boot: no per-request connection setup. */
@Injectable()
export class UpstreamClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, { pool: Pool; basePath: string }>();

  constructor(@Inject(CATALOG) catalog: Catalog) {
    for (const provider of catalog.providers.values()) {
      const url = new URL(provider.base_url);
      const pool = new Pool(url.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
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
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_TIMEOUT_MS,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.close()));
  }
}
