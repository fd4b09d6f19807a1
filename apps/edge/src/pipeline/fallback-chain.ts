import { type KeyRecord } from '#libs/auth';
import { type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { type QuotaGate } from '../quota/quota-gate.service.js';
import { type Fallbacks } from '../upstream/failover.service.js';
import { type ModelMiss } from '../upstream/upstream-run.js';

/**
 * One request's way down its model's fallback chain (docs/routing.md, "Fallbacks"): the chain
 * inside the key's group, as the configuration version the request started on has it (none for
 * a group with fallbacks off), each model at most once. A model is passed over when the request's
 * endpoint cannot reach it, when a prompt refused as too long would not fit it (its window is not
 * known to be larger than every window that refused the prompt), or when a budget of its own is
 * spent. It reads, and writes nothing: the run takes the model it names, and the request's
 * lifecycle puts it on the record (charged at its prices).
 */
export class FallbackChain implements Fallbacks {
  private readonly chain: readonly string[];
  private at = 0;
  /** The largest window the prompt was refused as too long for (0: none yet). */
  private refusedWindow = 0;

  constructor(
    private readonly snapshot: CatalogSnapshot,
    private readonly key: KeyRecord,
    /** The model the request was admitted for. */
    private readonly first: ModelConfig,
    private readonly quota: QuotaGate,
  ) {
    this.chain = snapshot.fallbacksOf(key.group, first.id);
  }

  async next(miss: ModelMiss, missed: string, serves: (model: string) => boolean): Promise<string | null> {
    if (miss.kind === 'too_long') {
      const window = this.snapshot.models.get(missed)?.context_window;
      // Without the refusing model's window, no other is known to be larger.
      if (window === undefined) return null;
      this.refusedWindow = Math.max(this.refusedWindow, window);
    }
    while (this.at < this.chain.length) {
      const model = this.snapshot.models.get(this.chain[this.at++]!);
      if (model === undefined || !this.fits(model) || !serves(model.id)) continue;
      if (!(await this.quota.admitFallback(this.key, this.first.id, model.id))) continue;
      return model.id;
    }
    return null;
  }

  private fits(model: ModelConfig): boolean {
    return this.refusedWindow === 0 || (model.context_window ?? 0) > this.refusedWindow;
  }
}
