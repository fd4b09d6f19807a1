import { type ModelPrice } from '@pydantic/genai-prices';
import { type ModelConfig } from '#libs/config';
import { CATALOG, catalogEntry } from './catalog-source.js';
import { pricingWithPremium, type RegionalPremium, vertexPremium } from './regional.js';

export type Pricing = ModelConfig['pricing'];
type PriceList = Omit<Pricing, 'tiers' | 'fees_per_thousand'>;
type PriceField = keyof PriceList;
type FeeField = keyof NonNullable<Pricing['fees_per_thousand']>;

/** What the catalog proposes for a model: prices in the config's shape, ready to edit. */
export interface PricingProposal {
  readonly pricing: Pricing;
  /** Tokens the model takes in one request (prompt and output), or null when the catalog has none. */
  readonly contextWindow: number | null;
  /** The catalog and its date: how fresh the proposal is. */
  readonly catalog: typeof CATALOG;
  readonly source: {
    /** The catalog's provider and model the id matched. */
    readonly provider: string;
    readonly model: string;
    readonly name: string | null;
    readonly pricingUrls: readonly string[];
    readonly comments: string | null;
  };
  /**
   * The catalog's prices the gateway cannot charge (`input_image_mtok 5`...), or a fee whose
   * counter this provider's usage never reports: to know, not to copy.
   */
  readonly unexpressed: readonly string[];
  /**
   * A premium the cloud bills at the provider's location over the catalog's prices, already added
   * to `pricing` (Vertex's regional endpoints for Claude), or null.
   */
  readonly premium: RegionalPremium | null;
}

/** Catalog token prices (per million) -> the config's fields. */
const TOKEN_PRICES: Readonly<Record<string, PriceField>> = {
  input_mtok: 'input_per_million',
  output_mtok: 'output_per_million',
  cache_read_mtok: 'cache_read_per_million',
  // The catalog's plain write price is the default TTL's: Anthropic's 5 minutes, OpenAI's only one.
  cache_write_mtok: 'cache_write_5m_per_million',
  cache_write_1h_mtok: 'cache_write_1h_per_million',
  input_audio_mtok: 'input_audio_per_million',
  cache_audio_read_mtok: 'cache_read_audio_per_million',
  output_audio_mtok: 'output_audio_per_million',
};

/** Catalog fees (per thousand) -> the usage counter the gateway charges them on. */
const FEES: Readonly<Record<string, FeeField>> = {
  web_searches_kcount: 'web_search_requests',
  requests_kcount: 'requests',
};

/**
 * Where the catalog knows a model, as a provider type's descriptor says (libs/providers): under a
 * catalog provider's id, or the provider whose API is at a URL (an OpenAI-compatible server's).
 */
export interface CatalogLookup {
  /** Null: nowhere (a local server the catalog cannot know). */
  readonly where: { readonly providerId: string } | { readonly providerApiUrl: string } | null;
  /** The model's id in the catalog. */
  readonly id: string;
  /**
   * Whether the provider's usage reports a web search count (a fee per search is then proposed):
   * a vendor that bills searches without counting them in its usage could never be charged one.
   */
  readonly countsWebSearches: boolean;
  /** A premium the cloud adds at a location the catalog does not price: its scheme and the location. */
  readonly premium?: { readonly scheme: 'vertex-claude'; readonly location: string | undefined };
}

export interface ProposeOptions {
  /** Prices in force at this time (the catalog knows announced changes); default now. */
  readonly at?: Date;
}

/**
 * The catalog's prices and context window for a model, in the config's shape, or null when the
 * catalog does not know it (or knows no token price for it).
 */
export function proposePricing(lookup: CatalogLookup, options: ProposeOptions = {}): PricingProposal | null {
  const at = options.at ?? new Date();
  const entry = lookup.where === null ? null : catalogEntry(lookup.where, lookup.id, at);
  if (entry === null) return null;
  const converted = pricingOf(entry.prices, lookup.countsWebSearches);
  if (converted === null) return null;
  const premium =
    lookup.premium === undefined
      ? null
      : vertexPremium(entry.provider.id, entry.model.id, lookup.premium.location);
  return {
    pricing: premium === null ? converted.pricing : pricingWithPremium(converted.pricing, premium.percent),
    contextWindow: entry.model.context_window ?? null,
    catalog: CATALOG,
    source: {
      provider: entry.provider.id,
      model: entry.model.id,
      name: entry.model.name ?? null,
      pricingUrls: entry.provider.pricing_urls ?? [],
      comments: entry.model.price_comments ?? null,
    },
    unexpressed: converted.unexpressed,
    premium,
  };
}

/** A catalog price: a number, or a base with tiers by prompt size. */
type CatalogPrice = ModelPrice[string];

function priceAt(price: CatalogPrice, promptTokens: number): number | undefined {
  if (typeof price === 'number' || price === undefined) return price;
  let value = price.base;
  for (const t of price.tiers) if (promptTokens > t.start) value = t.price;
  return value;
}

/**
 * The catalog's prices in the config's shape. A catalog tier applies to every token of a request
 * whose prompt exceeds its start, as the config's `above_input_tokens` does; each start becomes
 * one tier holding every token price at that size.
 */
function pricingOf(
  prices: ModelPrice,
  countsSearches: boolean,
): { pricing: Pricing; unexpressed: string[] } | null {
  if (prices.input_mtok === undefined && prices.output_mtok === undefined) return null;
  const unexpressed: string[] = [];
  const fees: Partial<Record<FeeField, number>> = {};
  const starts = new Set<number>();
  for (const [key, price] of Object.entries(prices)) {
    if (price === undefined) continue;
    if (TOKEN_PRICES[key] !== undefined) {
      if (typeof price === 'object') for (const t of price.tiers) starts.add(t.start);
    } else if (
      FEES[key] !== undefined &&
      typeof price === 'number' &&
      (countsSearches || FEES[key] === 'requests')
    ) {
      fees[FEES[key]] = price;
    } else unexpressed.push(`${key} ${describe(price)}`);
  }
  const listAt = (promptTokens: number): PriceList => {
    const list: Partial<Record<PriceField, number>> = {};
    for (const [key, field] of Object.entries(TOKEN_PRICES)) {
      const value = priceAt(prices[key], promptTokens);
      if (value !== undefined) list[field] = value;
    }
    return {
      ...list,
      input_per_million: list.input_per_million ?? 0,
      output_per_million: list.output_per_million ?? 0,
    };
  };
  const tiers = [...starts]
    .sort((a, b) => a - b)
    .map((start) => ({ above_input_tokens: start, ...listAt(start + 1) }));
  return {
    pricing: {
      ...listAt(0),
      ...(tiers.length > 0 && { tiers }),
      ...(Object.keys(fees).length > 0 && { fees_per_thousand: fees }),
    },
    unexpressed,
  };
}

function describe(price: NonNullable<CatalogPrice>): string {
  if (typeof price === 'number') return String(price);
  return [String(price.base), ...price.tiers.map((t) => `${t.price} above ${t.start}`)].join(', ');
}
