import { type ModelConfig } from '#libs/config';

type Pricing = ModelConfig['pricing'];

/** A premium a cloud bills on top of the catalog's prices where the catalog has no entry of its own. */
export interface RegionalPremium {
  /** Percent added to every token price (fees per search or request are not token prices). */
  readonly percent: number;
  /** Why, in words an operator can check: the cloud, the location, the models. */
  readonly reason: string;
  /** Where the cloud says so. */
  readonly url: string;
}

/**
 * Anthropic's "Claude on Vertex AI", Global vs regional endpoints: from Claude Sonnet 4.5 on, a
 * regional endpoint costs 10 % more than the global one; the models before it cost the same at
 * every location. The catalog knows Vertex's Claude only as Anthropic's models at Anthropic's own
 * (global) prices, so the premium is added here, as the catalog's own `regional.*` entries add it
 * for Bedrock's in-Region and `us.`/`eu.` inference profiles.
 */
const VERTEX_CLAUDE_SOURCE = 'https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai';

/**
 * The catalog's Anthropic models from before Claude Sonnet 4.5, which Vertex bills alike at every
 * location. A closed list: every later model (Haiku 4.5, Opus 4.5, Sonnet 4.6...) and every
 * future one carries the premium, as Anthropic states it.
 */
const SAME_PRICE_EVERYWHERE = /^claude-(v1|2|instant|3-|sonnet-4-0$|opus-4-0$|opus-4-1$)/;

/**
 * The premium a Vertex provider at `location` pays over the catalog's prices for a model the
 * catalog matched under its provider `catalogProvider` as `catalogModel`, or null (global, a
 * Gemini model, a Claude model older than Sonnet 4.5, or no location given).
 */
export function vertexPremium(
  catalogProvider: string,
  catalogModel: string,
  location: string | undefined,
): RegionalPremium | null {
  if (location === undefined || location === 'global') return null;
  if (catalogProvider !== 'anthropic' || SAME_PRICE_EVERYWHERE.test(catalogModel)) return null;
  return {
    percent: 10,
    reason: `Vertex AI location ${location}: Claude Sonnet 4.5 and later cost 10 % more at a regional endpoint than at global`,
    url: VERTEX_CLAUDE_SOURCE,
  };
}

const NANOS = 1_000_000_000;

/**
 * A price in credits per million with a whole percent added, exact to the nanocredit as charges
 * are: the price in nanocredits (rounded as `appliedPrices` rounds it), times (100 + percent) /
 * 100 in BigInt, rounded half up once, back in credits. 3 -> 3.3 and 3.75 -> 4.125, never
 * 3.3000000000000003 (3 * 1.1 in floating point).
 */
export function withPremium(creditsPerMillion: number, percent: number): number {
  const scaled = BigInt(Math.round(creditsPerMillion * NANOS)) * BigInt(100 + percent);
  return Number((scaled + 50n) / 100n) / NANOS;
}

type Prices = Record<string, number | undefined>;

function listWithPremium<T extends object>(list: T, percent: number): T {
  const out: Prices = { ...(list as Prices) };
  for (const [key, value] of Object.entries(out))
    if (key.endsWith('_per_million') && typeof value === 'number') out[key] = withPremium(value, percent);
  return out as T;
}

/** Every token price of a proposal, the tiers' included, with the premium; tier starts and fees unchanged. */
export function pricingWithPremium(pricing: Pricing, percent: number): Pricing {
  const { tiers, fees_per_thousand: fees, ...base } = pricing;
  return {
    ...listWithPremium(base, percent),
    ...(tiers !== undefined && { tiers: tiers.map((t) => listWithPremium(t, percent)) }),
    ...(fees !== undefined && { fees_per_thousand: fees }),
  };
}
