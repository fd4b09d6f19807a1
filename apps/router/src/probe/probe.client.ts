import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'undici';
import { type GatewayConfig, type ProviderRuntime } from '#libs/config';
import { type ProbeOutcome } from '#libs/routing';
import { CONFIG } from '../tokens.js';
import { outcomeOfError, outcomeOfStatus, probeHeaders, probeUrl } from './probe-request.js';

/** Probe bodies are model listings; read at most this much so a huge answer cannot stall a probe. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * One GET of a provider's model listing (unbilled), with its auth, bounded by probe_timeout_ms.
 * One small keep-alive pool per origin, shared by providers on the same host.
 */
@Injectable()
export class ProbeClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  private readonly timeoutMs: number;

  constructor(@Inject(CONFIG) config: GatewayConfig) {
    this.timeoutMs = config.router.probe_timeout_ms;
  }

  /** Never throws: every failure is an outcome with a reason. */
  async probe(provider: ProviderRuntime): Promise<ProbeOutcome> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const started = performance.now();
    try {
      const url = probeUrl(provider);
      const res = await this.pool(url.origin).request({
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers: probeHeaders(provider),
        signal,
      });
      await res.body.dump({ limit: MAX_BODY_BYTES, signal });
      return outcomeOfStatus(res.statusCode, Math.round(performance.now() - started));
    } catch (err) {
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
