/**
 * `node dist/bench/ab.js <label>=<results.json> ...`: an A/B table of several `npm run bench` rounds
 * per variant (e.g. Node 20 and Node 24 on the same code), as min / median / max per cell, so the
 * spread that a shared machine adds is visible beside the medians. Prints markdown.
 */
import { readFileSync } from 'node:fs';

interface Round {
  readonly edgeBootRssMb: number;
  readonly machine: { readonly node: string };
  readonly cells: readonly {
    readonly cell: { readonly mode: string; readonly concurrency: number };
    readonly pairs: readonly {
      readonly gateway: {
        readonly rps: number;
        readonly edgeCpuUsPerRequest: number;
        readonly edgeRuntime?: { readonly gc?: { readonly count: number; readonly totalMs: number } };
        readonly seconds: number;
      };
    }[];
    readonly edgePeakRssMb: number;
  }[];
}

const spread = (values: number[], digits = 0): string => {
  const v = [...values].sort((a, b) => a - b);
  const f = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: digits });
  return `${f(v[0]!)} / **${f(v[Math.floor(v.length / 2)]!)}** / ${f(v.at(-1)!)}`;
};

const variants = new Map<string, Round[]>();
for (const arg of process.argv.slice(2)) {
  const at = arg.indexOf('=');
  const label = arg.slice(0, at);
  const round = JSON.parse(readFileSync(arg.slice(at + 1), 'utf8')) as Round;
  variants.set(label, [...(variants.get(label) ?? []), round]);
}

const cells = [...variants.values()][0]?.[0]?.cells.map((c) => c.cell) ?? [];
const rows = [
  '| variant | Node | rounds | workload | gateway req/s | edge CPU µs/req | edge peak RSS MB | edge GC ms/s |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const [label, rounds] of variants) {
  for (const { mode, concurrency } of cells) {
    const mine = rounds.map((r) =>
      r.cells.find((c) => c.cell.mode === mode && c.cell.concurrency === concurrency)!,
    );
    const gateways = mine.flatMap((c) => c.pairs.map((p) => p.gateway));
    const gcPerSecond = gateways.map((g) => (g.edgeRuntime?.gc?.totalMs ?? NaN) / g.seconds);
    rows.push(
      `| ${label} | ${rounds[0]!.machine.node} | ${rounds.length} | ${mode} c=${concurrency} | ${spread(gateways.map((g) => g.rps))} | ` +
        `${spread(gateways.map((g) => g.edgeCpuUsPerRequest))} | ${spread(mine.map((c) => c.edgePeakRssMb))} | ${spread(gcPerSecond)} |`,
    );
  }
  rows.push(
    `| ${label} | ${rounds[0]!.machine.node} | ${rounds.length} | after boot | | | ${spread(rounds.map((r) => r.edgeBootRssMb))} | |`,
  );
}
console.log(rows.join('\n'));
