import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'undici';
import { type GatewayConfig, type ProviderRuntime } from '#libs/config';
import { CredentialUnavailableError, type ProviderCredentials } from '#libs/credentials';
import {
  firstBytes,
  outcomeOfCredential,
  outcomeOfError,
  outcomeOfStatus,
  probeHeaders,
  probeUrl,
  refusalReader,
} from '#libs/probe';
import { type ProbeOutcome } from '#libs/routing';
import { CONFIG, CREDENTIALS } from '../tokens.js';
import { sharedProbeKey } from './shared-probes.js';

/** Probe bodies are model listings; read at most this much so a huge answer cannot stall a probe. */
const MAX_BODY_BYTES = 256 * 1024;
/** Of a refusal's body, the part its reason is read from. */
const REFUSAL_BYTES = 4096;

/**
 * One GET of a provider's model listing (unbilled), with its auth, bounded by probe_timeout_ms.
 * One small keep-alive pool per origin, shared by providers on the same host.
 */
@Injectable()
export class ProbeClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  /** Per provider runtime (replaced, not changed, when the configuration changes). */
  private readonly keys = new WeakMap<ProviderRuntime, string>();
  private readonly timeoutMs: number;

  constructor(
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(CREDENTIALS) private readonly credentials: Pick<ProviderCredentials, 'get'>,
  ) {
    this.timeoutMs = config.router.probe_timeout_ms;
  }

  /** Providers with the same key are sent one probe, whose outcome is each one's (shared-probes.ts). */
  probeKey(provider: ProviderRuntime): string {
    let key = this.keys.get(provider);
    if (key === undefined) {
      const request = (p: ProviderRuntime) => ({ url: probeUrl(p), headers: probeHeaders(p) });
      key = sharedProbeKey(provider, request, this.credentials.get(provider.id) !== null);
      this.keys.set(provider, key);
    }
    return key;
  }

  /** Never throws: every failure is an outcome with a reason. */
  async probe(provider: ProviderRuntime): Promise<ProbeOutcome> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const started = performance.now();
    try {
      const url = probeUrl(provider);
      const headers = probeHeaders(provider);
      // The same credential as the edge's requests: no valid token (the identity platform refused
      // it, and the last one expired) is the provider's down reason.
      const auth = this.credentials.get(provider.id);
      if (auth !== null) {
        const method = 'GET';
        Object.assign(headers, await auth.headers({ method, url: url.href, headers, body: '' }));
      }
      const res = await this.pool(url.origin).request({
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers,
        signal,
      });
      const refusal = refusalReader(provider);
      if (refusal !== null && (res.statusCode === 401 || res.statusCode === 403)) {
        // A refused credential: the provider's own words are the down reason (their first 4 KiB).
        const body = await firstBytes(res.body, REFUSAL_BYTES);
        const reason = refusal(res.statusCode, res.headers, body);
        return outcomeOfStatus(res.statusCode, Math.round(performance.now() - started), reason);
      }
      await res.body.dump({ limit: MAX_BODY_BYTES, signal });
      return outcomeOfStatus(res.statusCode, Math.round(performance.now() - started));
    } catch (err) {
      if (err instanceof CredentialUnavailableError) return outcomeOfCredential(err.reason);
      return outcomeOfError(err, signal.aborted, this.timeoutMs);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((p) => p.destroy()));
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 2,
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        // HTTP/1.1 as the edge's upstream pools speak it (undici 8 would negotiate HTTP/2 over TLS).
        allowH2: false,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}
