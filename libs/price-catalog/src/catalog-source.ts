import { calcPrice, type ModelInfo, type ModelPrice, type Provider } from '@pydantic/genai-prices';

/**
 * The maintained price database the gateway proposes prices from: Pydantic's genai-prices, whose
 * data ships inside the npm package (nothing is fetched at run time). Its data carries no date of
 * its own, so the catalog's date is the release's: bump both together with the dependency (a unit
 * test compares this version with the installed one).
 */
export const CATALOG = Object.freeze({
  package: '@pydantic/genai-prices',
  version: '0.1.8',
  /** When that version was published to npm, i.e. how fresh its prices are. */
  date: '2026-09-23',
});

/** One model of the catalog with the prices in force at a date. */
export interface CatalogEntry {
  readonly provider: Pick<Provider, 'id' | 'name' | 'pricing_urls'>;
  readonly model: Pick<ModelInfo, 'id' | 'name' | 'context_window' | 'price_comments'>;
  readonly prices: ModelPrice;
}

/**
 * The catalog's entry for a model of one of its providers (or of the provider whose API address
 * matches), or null. The package matches the model id with each model's own rules (prefixes,
 * dated snapshots, Bedrock's regional profiles) and picks the prices in force at `at`.
 */
export function catalogEntry(
  where: { readonly providerId?: string; readonly providerApiUrl?: string },
  modelId: string,
  at: Date,
): CatalogEntry | null {
  let found;
  try {
    found = calcPrice({}, modelId, { ...where, timestamp: at });
  } catch {
    // The package throws on price data it cannot use (a missing ancestor price): no proposal then.
    return null;
  }
  if (found === null) return null;
  return { provider: found.provider, model: found.model, prices: found.model_price };
}
