import { parseArgs } from 'node:util';
import { type GatewayConfig } from '#libs/config';
import { CATALOG, comparePricing, type PriceDifference, proposePricing } from '#libs/price-catalog';
import { catalogLookupOf } from '#libs/providers';

export const PRICES_CHECK_USAGE = 'usage: npm run prices:check [-- --strict]';

export interface PricesCheckDeps {
  readonly config: GatewayConfig;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** The catalog's prices in force at this time (default now). */
  readonly now?: () => Date;
}

/** Exit codes: 0 checked (differences only reported), 1 differences under --strict, 2 bad arguments. */
export type PricesCheckExit = 0 | 1 | 2;

/** One model as one provider serves it, against the catalog. */
interface Checked {
  readonly model: string;
  readonly provider: string;
  readonly upstream: string;
  /** Null: the catalog does not know the model. */
  readonly catalogModel: string | null;
  /** The premium the provider's location adds to the catalog's prices (Vertex's regional Claude), or null. */
  readonly premium: string | null;
  readonly differences: readonly PriceDifference[];
}

const show = (n: number | null): string => (n === null ? 'not set' : String(n));

function checkAll(config: GatewayConfig, at: Date): Checked[] {
  const out: Checked[] = [];
  for (const model of config.models) {
    for (const p of config.providers) {
      const served = p.models.find((m) => m.id === model.id);
      if (served === undefined) continue;
      const proposal = proposePricing(catalogLookupOf(p, served.upstream), { at });
      out.push({
        model: model.id,
        provider: p.id,
        upstream: served.upstream,
        catalogModel: proposal === null ? null : `${proposal.source.provider}/${proposal.source.model}`,
        premium:
          proposal === null || proposal.premium === null
            ? null
            : `+${proposal.premium.percent} %: ${proposal.premium.reason}`,
        differences: proposal === null ? [] : comparePricing(model.pricing, proposal.pricing),
      });
    }
  }
  return out;
}

/**
 * Lists the configured models whose prices differ from the catalog's, per provider serving them
 * (a model a cloud serves may cost more there: Bedrock's regional profiles, Vertex's regional
 * locations for Claude). Reports only: the
 * config is never changed, and the exit code is 0 unless `--strict` asks to fail on a difference.
 */
export function pricesCheckCommand(argv: readonly string[], deps: PricesCheckDeps): PricesCheckExit {
  let strict: boolean;
  try {
    const { values } = parseArgs({ args: [...argv], strict: true, options: { strict: { type: 'boolean' } } });
    strict = values.strict === true;
  } catch (err) {
    deps.err(`${(err as Error).message}\n${PRICES_CHECK_USAGE}`);
    return 2;
  }
  const checked = checkAll(deps.config, deps.now?.() ?? new Date());
  deps.out(`Catalog: ${CATALOG.package} ${CATALOG.version} (${CATALOG.date})`);
  const differing = checked.filter((c) => c.differences.length > 0);
  for (const c of differing) {
    const premium = c.premium === null ? '' : ` (${c.premium})`;
    deps.out(
      `${c.model} (provider ${c.provider}, upstream ${c.upstream}) differs from ${c.catalogModel}${premium}:`,
    );
    for (const d of c.differences)
      deps.out(`  ${d.field}: configured ${show(d.configured)}, catalog ${show(d.catalog)}`);
  }
  const unknown = checked.filter((c) => c.catalogModel === null).map((c) => `${c.model} (${c.provider})`);
  if (unknown.length > 0) deps.out(`Not in the catalog: ${unknown.join(', ')}`);
  // The catalog is looked up by the vendor that serves a model: without a provider there is none.
  const unserved = deps.config.models.filter((m) => !checked.some((c) => c.model === m.id)).map((m) => m.id);
  if (unserved.length > 0) deps.out(`Served by no provider, not checked: ${unserved.join(', ')}`);
  deps.out(
    `${checked.length} checked: ${differing.length} differ, ${checked.length - differing.length - unknown.length} match, ${unknown.length} not in the catalog`,
  );
  return strict && differing.length > 0 ? 1 : 0;
}
