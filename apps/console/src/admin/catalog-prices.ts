import { z } from 'zod';
import { type ModelConfig, type ProviderRuntime } from '#libs/config';
import {
  comparePricing,
  type PriceDifference,
  type PricingProposal,
  proposePricing,
} from '#libs/price-catalog';
import { catalogLookupOf } from '#libs/providers';
import { text } from '../http/validate.js';

/** `?model=`: a model id this provider serves, or any id its vendor serves (ARNs and `a/b` ids too). */
export const catalogPricesQuerySchema = z.strictObject({ model: text(200).min(1) });

export interface CatalogPricesView {
  readonly providerId: string;
  /** The vendor's id the catalog was asked for (the served model's `upstream`). */
  readonly upstream: string;
  readonly proposal: PricingProposal;
  /** The configured model this provider serves under that id, its prices and how they differ. */
  readonly configured: {
    readonly modelId: string;
    readonly pricing: ModelConfig['pricing'];
    readonly differences: readonly PriceDifference[];
  } | null;
}

/**
 * What the price catalog proposes for a model as this provider serves it, beside the configured
 * prices when the provider already serves it: the proposal a model editor fills its form with.
 * Null when the catalog does not know the model.
 */
export function catalogPricesFor(
  provider: ProviderRuntime,
  model: string,
  models: ReadonlyMap<string, ModelConfig>,
): CatalogPricesView | null {
  const served =
    provider.models.find((m) => m.id === model) ?? provider.models.find((m) => m.upstream === model);
  const upstream = served?.upstream ?? model;
  const proposal = proposePricing(catalogLookupOf(provider, upstream));
  if (proposal === null) return null;
  const config = served === undefined ? undefined : models.get(served.id);
  return {
    providerId: provider.id,
    upstream,
    proposal,
    configured:
      config === undefined
        ? null
        : {
            modelId: config.id,
            pricing: config.pricing,
            differences: comparePricing(config.pricing, proposal.pricing),
          },
  };
}
