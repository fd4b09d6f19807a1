/**
 * The A/B table of `node dist/bench/ab.js`: several `npm run bench` rounds per variant (e.g. Node
 * 20 and Node 24 on the same code, or GC flags through BENCH_EDGE_NODE_OPTIONS), as min / median /
 * max per cell, so the spread a shared machine adds is visible beside the medians.
 */
import { perRequest } from './heap-accounting.js';
import { spread } from './stats.js';

/** The parts of a round's results.json read here (older rounds may lack the heap figures). */
export interface AbRound {
  readonly edgeBootRssMb: number;
  readonly machine: { readonly node: string };
  readonly cells: readonly {
    readonly cell: { readonly mode: string; readonly concurrency: number };
    readonly pairs: readonly {
      readonly gateway: {
        readonly rps: number;
        readonly edgeCpuUsPerRequest: number;
        readonly edgeRuntime?: {
          readonly gc?: { readonly count: number; readonly totalMs: number };
          readonly heap?: { readonly allocatedBytes: number; readonly promotedBytes: number };
        };
        readonly seconds: number;
        readonly requests: number;
      };
    }[];
    readonly edgePeakRssMb: number;
  }[];
}

/** `min / **median** / max` of the rounds that have the figure; n/a when none has it. */
export function minMedianMax(values: readonly number[], digits = 0): string {
  const s = spread(values);
  if (s.rounds === 0) return 'n/a';
  const f = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: digits });
  return `${f(s.min)} / **${f(s.median)}** / ${f(s.max)}`;
}

const KB = 1024;

/** One row per variant and cell (those of the first round of the first variant), then its boot RSS. */
export function abTable(variants: ReadonlyMap<string, readonly AbRound[]>): string {
  const cells = [...variants.values()][0]?.[0]?.cells.map((c) => c.cell) ?? [];
  const rows = [
    '| variant | Node | rounds | workload | gateway req/s | edge CPU µs/req | edge peak RSS MB | edge GC ms/s | allocated KB/req | promoted KB/req |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [label, rounds] of variants) {
    const head = `| ${label} | ${rounds[0]?.machine.node ?? 'n/a'} | ${rounds.length}`;
    for (const { mode, concurrency } of cells) {
      const mine = rounds.flatMap((r) =>
        r.cells.filter((c) => c.cell.mode === mode && c.cell.concurrency === concurrency),
      );
      const gateways = mine.flatMap((c) => c.pairs.map((p) => p.gateway));
      const heapKb = (bytes: 'allocatedBytes' | 'promotedBytes'): number[] =>
        gateways.map((g) => perRequest(g.edgeRuntime?.heap?.[bytes], g.requests) / KB);
      rows.push(
        `${head} | ${mode} c=${concurrency} | ${minMedianMax(gateways.map((g) => g.rps))} | ` +
          `${minMedianMax(gateways.map((g) => g.edgeCpuUsPerRequest))} | ${minMedianMax(mine.map((c) => c.edgePeakRssMb))} | ` +
          `${minMedianMax(gateways.map((g) => (g.edgeRuntime?.gc?.totalMs ?? Number.NaN) / g.seconds))} | ` +
          `${minMedianMax(heapKb('allocatedBytes'), 1)} | ${minMedianMax(heapKb('promotedBytes'), 1)} |`,
      );
    }
    rows.push(`${head} | after boot | | | ${minMedianMax(rounds.map((r) => r.edgeBootRssMb))} | | | |`);
  }
  return rows.join('\n');
}

/** `<label>=<results.json>` arguments, grouped by label in the order first given. */
export function variantFiles(args: readonly string[]): Map<string, string[]> {
  const variants = new Map<string, string[]>();
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at <= 0 || at === arg.length - 1) throw new Error(`expected <label>=<results.json>, got "${arg}"`);
    const label = arg.slice(0, at);
    variants.set(label, [...(variants.get(label) ?? []), arg.slice(at + 1)]);
  }
  return variants;
}
