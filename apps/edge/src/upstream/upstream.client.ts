import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';
import { type Catalog, type GatewayConfig, type ProviderRuntime } from '#libs/config';
import { type ProviderCredentials, type UpstreamAuth } from '#libs/credentials';
import { CATALOG, CONFIG, CREDENTIALS } from '../tokens.js';
import { type BufferedResponse, dispatchBuffered } from './buffered-dispatch.js';

interface PoolEntry {
  readonly pool: Pool;
  readonly providerId: string;
  /** The provider's base URL the pool was made for: another one (a new version) gets a new pool. */
  readonly baseUrl: string;
  readonly origin: string;
  readonly basePath: string;
}

export interface UpstreamRequest {
  readonly provider: ProviderRuntime;
  /** Path relative to the provider's base URL, e.g. /chat/completions. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
  readonly signal: AbortSignal;
}

/** The attempt's headers are its own object (built per attempt): adding the auth is safe. */
function withAuth(req: UpstreamRequest, auth: Readonly<Record<string, string>> | undefined): void {
  if (auth !== undefined) Object.assign(req.headers, auth);
}

type Send<T> = (
  entry: PoolEntry,
  req: UpstreamRequest,
  auth?: Readonly<Record<string, string>>,
) => Promise<T>;

/**
 * One keep-alive connection pool per provider, made at boot (or at its first request, for one a
 * configuration version added): no per-request connection setup. A version that moves a provider
 * to another base URL gets it a new pool, and the old one closes once its requests are done.
 * Timeouts per phase come from `routing`: connect, first byte (until the response headers) and the
 * idle gap between body chunks; the total deadline is the caller's signal.
 */
@Injectable()
export class UpstreamClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly headersTimeout: number;
  private readonly bodyTimeout: number;
  private readonly connectTimeout: number;

  constructor(
    @Inject(CATALOG) catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(CREDENTIALS) private readonly credentials: ProviderCredentials,
  ) {
    const r = config.routing;
    this.headersTimeout = r.first_byte_timeout_ms;
    this.bodyTimeout = r.idle_timeout_ms;
    this.connectTimeout = r.connect_timeout_ms;
    for (const provider of catalog.providers.values()) this.entryFor(provider);
    catalog.onChange((next) => {
      for (const [key, entry] of this.pools) {
        if (next.providers.get(entry.providerId)?.base_url === entry.baseUrl) continue;
        // Requests of the previous version still on it finish first (undici's close waits).
        this.pools.delete(key);
        void entry.pool.close();
      }
    });
  }

  /** By provider and base URL, so a request of the previous version keeps its pool. */
  private entryFor(provider: ProviderRuntime): PoolEntry {
    const key = `${provider.id}\u0000${provider.base_url}`;
    const held = this.pools.get(key);
    if (held) return held;
    const url = new URL(provider.base_url);
    const entry: PoolEntry = {
      pool: new Pool(url.origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: this.connectTimeout },
        // undici 8 speaks HTTP/2 to any TLS vendor that offers it (ALPN); the pool sizing above,
        // the per-request timeouts and the headers we forward are those of HTTP/1.1, kept explicitly.
        allowH2: false,
      }),
      providerId: provider.id,
      baseUrl: provider.base_url,
      origin: url.origin,
      basePath: url.pathname === '/' ? '' : url.pathname,
    };
    this.pools.set(key, entry);
    return entry;
  }

  /**
   * Sends one attempt whose answer is relayed as it comes (a stream). A provider with a static key
   * (its adapter wrote it) goes straight out; one with a credential gets its auth headers first:
   * synchronously from a cached token, or awaited (a signature, the first token). No valid
   * credential rejects with `CredentialUnavailableError`.
   */
  post(req: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    return this.authorized(req, this.sendStreamed);
  }

  /**
   * Sends one attempt whose answer is read whole (not a stream), as `post` does, and resolves with
   * its body in one buffer: no body stream (see `dispatchBuffered` for its errors).
   */
  postBuffered(req: UpstreamRequest): Promise<BufferedResponse> {
    return this.authorized(req, this.sendBuffered);
  }

  private authorized<T>(req: UpstreamRequest, send: Send<T>): Promise<T> {
    const entry = this.entryFor(req.provider);
    const credential = this.credentials.get(req.provider.id);
    if (credential === null) return send(entry, req);
    let auth: ReturnType<UpstreamAuth['headers']>;
    try {
      auth = credential.headers({
        method: 'POST',
        url: entry.origin + entry.basePath + req.path,
        headers: req.headers,
        body: req.body,
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (!(auth instanceof Promise)) return send(entry, req, auth);
    return auth.then((headers) => send(entry, req, headers));
  }

  private readonly sendStreamed: Send<Dispatcher.ResponseData> = (entry, req, auth) => {
    withAuth(req, auth);
    return entry.pool.request({
      method: 'POST',
      path: entry.basePath + req.path,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      headersTimeout: this.headersTimeout,
      bodyTimeout: this.bodyTimeout,
    });
  };

  private readonly sendBuffered: Send<BufferedResponse> = (entry, req, auth) => {
    withAuth(req, auth);
    const opts: Dispatcher.DispatchOptions = {
      method: 'POST',
      path: entry.basePath + req.path,
      headers: req.headers,
      body: req.body,
      headersTimeout: this.headersTimeout,
      bodyTimeout: this.bodyTimeout,
    };
    return dispatchBuffered(entry.pool, opts, req.signal);
  };

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.close()));
  }
}
