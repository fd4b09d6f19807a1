import { type MachineFacts } from './proc-stats.js';
import { type ProfileShare, type ProfileSummary } from './profile-analysis.js';
import { type BenchSettings } from './settings.js';
import { type TtftResult } from './ttft.js';
import { type Cell, type CellResult } from './workloads.js';

export interface BenchReport {
  readonly date: Date;
  readonly minutes: number;
  readonly machine: MachineFacts;
  readonly settings: BenchSettings;
  readonly mockBehaviour: Record<string, unknown>;
  readonly cells: readonly CellResult[];
  readonly ttft: TtftResult;
  readonly edgePeakRssMb: number;
  /** The edge's RSS once ready, before any load. */
  readonly edgeBootRssMb: number;
  readonly logCheck: { readonly shipped: number; readonly rows: number; readonly failed: number };
  readonly profile: {
    readonly cell: Cell;
    readonly rps: number;
    readonly file: string;
    readonly summary: ProfileSummary;
  } | null;
}

/** Targets the gateway is judged against. */
export const TARGETS = {
  addedP50AtC1Ms: 1,
  cpuUsPerNonStreamRequest: 400,
  addedTtftMs: 2,
  peakRssMb: 200,
} as const;

const ms = (n: number): string => n.toFixed(2);
const signedMs = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const pct = (n: number): string => `${n.toFixed(1)} %`;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function resultsTable(cells: readonly CellResult[]): string {
  return table(
    [
      'workload',
      'conc.',
      'direct req/s',
      'gateway req/s',
      'ratio',
      'direct p50 ms',
      'gateway p50 ms',
      'added p50 ms',
      'direct p99 ms',
      'gateway p99 ms',
      'added p99 ms',
      'edge CPU µs/req',
      'edge core use',
      'edge peak RSS MB',
    ],
    cells.map((c) => [
      c.cell.mode,
      String(c.cell.concurrency),
      int(c.direct.rps),
      int(c.gateway.rps),
      c.throughputRatio.toFixed(2),
      ms(c.direct.p50Ms),
      ms(c.gateway.p50Ms),
      signedMs(c.addedP50Ms),
      ms(c.direct.p99Ms),
      ms(c.gateway.p99Ms),
      signedMs(c.addedP99Ms),
      int(c.edgeCpuUsPerRequest),
      pct(c.edgeCorePct),
      int(c.edgePeakRssMb),
    ]),
  );
}

const PROCESSES = ['edge', 'worker', 'redis', 'postgres', 'mock', 'router'] as const;

export function cpuByProcessTable(cells: readonly CellResult[]): string {
  return table(
    [
      'workload',
      'conc.',
      ...PROCESSES.map((p) => `${p} µs`),
      'total µs (gateway)',
      'mock µs (direct)',
      'CPUs busy, gateway',
      'CPUs busy, direct',
    ],
    cells.map((c) => {
      const total = PROCESSES.reduce((sum, p) => sum + (c.cpuUsPerRequest[p] ?? 0), 0);
      return [
        c.cell.mode,
        String(c.cell.concurrency),
        ...PROCESSES.map((p) => int(c.cpuUsPerRequest[p] ?? Number.NaN)),
        int(total),
        int(c.directMockCpuUsPerRequest),
        pct(c.machineBusyPct.gateway),
        pct(c.machineBusyPct.direct),
      ];
    }),
  );
}

export function ttftTable(t: TtftResult): string {
  return table(
    ['', 'direct ms', 'gateway ms', 'added ms'],
    [
      ['p50', ms(t.direct.p50Ms), ms(t.gateway.p50Ms), signedMs(t.gateway.p50Ms - t.direct.p50Ms)],
      ['p99', ms(t.direct.p99Ms), ms(t.gateway.p99Ms), signedMs(t.gateway.p99Ms - t.direct.p99Ms)],
    ],
  );
}

interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
}

export function verdicts(r: BenchReport): Verdict[] {
  const c1 = r.cells.filter((c) => c.cell.concurrency === 1);
  const nonStream = r.cells.filter((c) => c.cell.mode === 'non-stream');
  const addedTtft = r.ttft.gateway.p50Ms - r.ttft.direct.p50Ms;
  const all = (ok: boolean[]): boolean | null => (ok.length === 0 ? null : ok.every(Boolean));
  return [
    {
      target: `added p50 latency at concurrency 1 < ${TARGETS.addedP50AtC1Ms} ms`,
      measured: c1.map((c) => `${c.cell.mode} ${signedMs(c.addedP50Ms)} ms`).join(', ') || 'not measured',
      met: all(c1.map((c) => c.addedP50Ms < TARGETS.addedP50AtC1Ms)),
    },
    {
      target: `edge CPU per non-stream request < ${TARGETS.cpuUsPerNonStreamRequest} µs`,
      measured: nonStream.map((c) => `c=${c.cell.concurrency} ${int(c.edgeCpuUsPerRequest)} µs`).join(', '),
      met: all(nonStream.map((c) => c.edgeCpuUsPerRequest < TARGETS.cpuUsPerNonStreamRequest)),
    },
    {
      target: `added TTFT (p50) < ${TARGETS.addedTtftMs} ms`,
      measured: `${signedMs(addedTtft)} ms (p99 ${signedMs(r.ttft.gateway.p99Ms - r.ttft.direct.p99Ms)} ms)`,
      met: addedTtft < TARGETS.addedTtftMs,
    },
    {
      target: `edge peak RSS < ${TARGETS.peakRssMb} MB`,
      measured: `${int(r.edgePeakRssMb)} MB (${int(r.edgeBootRssMb)} MB after boot, before load)`,
      met: r.edgePeakRssMb < TARGETS.peakRssMb,
    },
  ];
}

export function verdictTable(r: BenchReport): string {
  const word = (met: boolean | null): string => (met === null ? 'not measured' : met ? 'met' : '**missed**');
  return table(
    ['target', 'measured', 'verdict'],
    verdicts(r).map((v) => [v.target, v.measured, word(v.met)]),
  );
}

export function sharesTable(title: string, shares: readonly ProfileShare[]): string {
  return table(
    ['share of busy time', title],
    shares.map((s) => [pct(s.pct), `\`${s.name}\``]),
  );
}

/** What `npm run bench` prints at the end. */
export function renderConsoleSummary(r: BenchReport): string {
  return [
    resultsTable(r.cells),
    '',
    'CPU per gateway request by process (µs):',
    cpuByProcessTable(r.cells),
    '',
    `Time to first token (${r.ttft.requests} sequential streams each):`,
    ttftTable(r.ttft),
    '',
    verdictTable(r),
    '',
    r.profile
      ? `Edge profile (${r.profile.cell.mode}, c=${r.profile.cell.concurrency}):\n` +
        sharesTable('component', r.profile.summary.components)
      : 'Profile skipped.',
  ].join('\n');
}
