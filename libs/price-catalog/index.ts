/**
 * Prices from a maintained catalog (issue 22): `proposePricing(lookup)` (where a provider type's descriptor says the catalog knows a model)
 * gives a model's prices in the config's shape, its context window, the catalog's date and where
 * the prices come from, or null; `comparePricing` lists how a configured price list differs from
 * a proposal. Pure: the catalog's data ships in its npm package. The console's model editor and
 * `npm run prices:check` are its callers; the edge never loads it.
 */
export { CATALOG } from './src/catalog-source.js';
export {
  type CatalogLookup,
  type PricingProposal,
  type ProposeOptions,
  proposePricing,
} from './src/propose.js';
export { comparePricing, type PriceDifference } from './src/compare.js';
