import { Inject, Injectable } from '@nestjs/common';
import { Catalog, type CatalogSnapshot } from '#libs/config';
import {
  type CandidateHealth,
  type CandidateHealthLookup,
  HealthBook,
  type RouteSample,
} from '#libs/routing';
import { CATALOG } from '../tokens.js';

/**
 * The leader's passive view: stats and breakers per (provider, model), from the edges' samples.
 * In memory only: a new leader starts with fresh stats (and the breakers closed), and the probes
 * plus the first samples rebuild them within seconds.
 */
@Injectable()
export class PassiveHealth {
  private readonly book: HealthBook;
  /** Only configured (provider, model) pairs are tracked, so a stray stream entry cannot grow memory. */
  private known: ReadonlySet<string>;

  constructor(@Inject(CATALOG) catalog: Catalog) {
    const router = catalog.config.router;
    this.book = new HealthBook(
      {
        ewmaAlpha: router.ewma_alpha,
        windowSamples: router.window_samples,
        windowMs: router.breaker.window_ms,
      },
      router.breaker,
    );
    const track = (next: CatalogSnapshot): void => {
      this.known = new Set(
        [...next.providers.values()].flatMap((p) => p.models.map((m) => pairKey(p.id, m.id))),
      );
    };
    this.known = new Set();
    track(catalog.snapshot());
    catalog.onChange(track);
  }

  /** Folds a batch in; returns how many samples were about configured candidates. */
  record(samples: readonly RouteSample[], now: number): number {
    let accepted = 0;
    for (const s of samples) {
      if (!this.known.has(pairKey(s.providerId, s.model))) continue;
      this.book.record(s, now);
      accepted++;
    }
    return accepted;
  }

  /** Ends cooldowns that are over (open -> half_open). */
  tick(now: number): void {
    this.book.tick(now);
  }

  lookup(now: number): CandidateHealthLookup {
    return this.book.lookup(now);
  }

  get(providerId: string, modelId: string, now: number): CandidateHealth | undefined {
    return this.book.get(providerId, modelId, now);
  }

  reset(): void {
    this.book.clear();
  }
}

function pairKey(providerId: string, modelId: string): string {
  return `${providerId}\u0000${modelId}`;
}
