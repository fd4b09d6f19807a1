/** Pure helpers of `npm run soak`: the samples it takes, their table and their trend. */

export interface SoakSample {
  /** Seconds since the load started. */
  readonly t: number;
  /** Resident set size per process, MB. */
  readonly rssMb: Readonly<Record<string, number>>;
  /** BullMQ jobs not finished yet (waiting, active, delayed): one job = one edge flush. */
  readonly queueJobs: number;
  /** Logs in the edge's memory buffer, not yet in a job. */
  readonly edgeBuffered: number;
  /** Redis `used_memory`, MB (the whole shared server). */
  readonly redisMb: number;
}

export interface Trend {
  readonly name: string;
  /** Mean over the first and the last third of the samples. */
  readonly firstThird: number;
  readonly lastThird: number;
  readonly max: number;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Per series: early vs late mean and the peak; a leak shows as lastThird well above firstThird. */
export function trends(samples: readonly SoakSample[]): Trend[] {
  if (samples.length === 0) return [];
  const third = Math.max(1, Math.floor(samples.length / 3));
  const first = samples.slice(0, third);
  const last = samples.slice(-third);
  const series: Array<[string, (s: SoakSample) => number]> = [
    ...Object.keys(samples[0]!.rssMb).map((name): [string, (s: SoakSample) => number] => [
      `${name} RSS MB`,
      (s) => s.rssMb[name] ?? 0,
    ]),
    ['queue jobs', (s) => s.queueJobs],
    ['edge buffered logs', (s) => s.edgeBuffered],
    ['redis used MB', (s) => s.redisMb],
  ];
  return series.map(([name, get]) => ({
    name,
    firstThird: mean(first.map(get)),
    lastThird: mean(last.map(get)),
    max: Math.max(...samples.map(get)),
  }));
}

const cell = (v: number | string): string => (typeof v === 'number' ? v.toFixed(v % 1 === 0 ? 0 : 1) : v);

function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<number | string>>): string {
  const lines = [header, header.map(() => '---'), ...rows.map((r) => r.map(cell))];
  return lines.map((l) => `| ${l.join(' | ')} |`).join('\n');
}

/** Markdown table of every sample. */
export function samplesTable(samples: readonly SoakSample[]): string {
  const names = Object.keys(samples[0]?.rssMb ?? {});
  return table(
    ['t (s)', ...names.map((n) => `${n} RSS MB`), 'queue jobs', 'edge buffered', 'redis MB'],
    samples.map((s) => [s.t, ...names.map((n) => s.rssMb[n] ?? 0), s.queueJobs, s.edgeBuffered, s.redisMb]),
  );
}

export function trendsTable(rows: readonly Trend[]): string {
  return table(
    ['series', 'mean, first third', 'mean, last third', 'max'],
    rows.map((r) => [r.name, r.firstThird, r.lastThird, r.max]),
  );
}
