import { type Pricing } from './propose.js';

/** One price that differs: its path in the config (`tiers[above 200000].output_per_million`). */
export interface PriceDifference {
  readonly field: string;
  /** Null: not set (a cache or audio price then falls back to the input price, a fee to nothing). */
  readonly configured: number | null;
  readonly catalog: number | null;
}

type Prices = Readonly<Record<string, number | undefined>>;

/** Prices are compared in nanocredits, the unit charges are computed in. */
const same = (a: number | null, b: number | null): boolean =>
  a === null || b === null ? a === b : Math.round(a * 1e9) === Math.round(b * 1e9);

function diffLists(prefix: string, configured: Prices, catalog: Prices): PriceDifference[] {
  const fields = new Set([...Object.keys(configured), ...Object.keys(catalog)]);
  fields.delete('above_input_tokens');
  const out: PriceDifference[] = [];
  for (const field of [...fields].sort()) {
    const a = configured[field] ?? null;
    const b = catalog[field] ?? null;
    if (!same(a, b)) out.push({ field: `${prefix}${field}`, configured: a, catalog: b });
  }
  return out;
}

/**
 * How a configured price list differs from the catalog's, field by field: the base prices, each
 * tier (matched by `above_input_tokens`; a tier only one side has differs in every price) and
 * each fee. Empty when they charge alike.
 */
export function comparePricing(configured: Pricing, catalog: Pricing): PriceDifference[] {
  const { tiers: ours = [], fees_per_thousand: ourFees = {}, ...ourBase } = configured;
  const { tiers: theirs = [], fees_per_thousand: theirFees = {}, ...theirBase } = catalog;
  const out = diffLists('', ourBase, theirBase);
  const starts = [...new Set([...ours, ...theirs].map((t) => t.above_input_tokens))].sort((a, b) => a - b);
  for (const start of starts) {
    const find = (list: typeof ours): Prices => list.find((t) => t.above_input_tokens === start) ?? {};
    out.push(...diffLists(`tiers[above ${start}].`, find(ours), find(theirs)));
  }
  out.push(...diffLists('fees_per_thousand.', ourFees, theirFees));
  return out;
}
