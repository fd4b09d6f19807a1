import { type BenchReport } from './report.js';
import { type MemoryAtPeak } from './runtime-stats.js';
import { type CellResult, type EdgeRuntimeSummary } from './workloads.js';

const ms = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(2)} ms`;
const us = (n: number): string => `${Math.round(n)} µs`;
const pct = (n: number): string => `${n.toFixed(1)} %`;

/** Busier than this, all CPUs together, and the machine is the bottleneck rather than one process. */
const SATURATED_PCT = 85;

/** The few sentences worth reading first, computed from the run so they never go stale. */
export function summaryBullets(r: BenchReport): string[] {
  const bullets: string[] = [];
  const c1 = r.cells.filter((c) => c.cell.concurrency === 1);
  const t = r.ttft;
  if (c1.length > 0) {
    bullets.push(
      `Added latency at concurrency 1, p50: ${c1.map((c) => `${c.cell.mode} ${ms(c.addedP50Ms)}`).join(', ')}; ` +
        `p99: ${c1.map((c) => `${c.cell.mode} ${ms(c.addedP99Ms)}`).join(', ')}. ` +
        `Added time to first token: ${ms(t.gateway.p50Ms - t.direct.p50Ms)} at p50, ${ms(t.gateway.p99Ms - t.direct.p99Ms)} at p99.`,
    );
  }
  const ratios = r.cells.map((c) => c.throughputRatio);
  const maxCore = Math.max(...r.cells.map((c) => c.edgeCorePct));
  const saturated = r.cells.filter((c) => c.cell.concurrency > 1);
  const minBusy = Math.min(...saturated.map((c) => c.machineBusyPct.gateway));
  // The non-stream cell of the highest concurrency (any cell when no non-stream one ran).
  const candidates = r.cells.some((c) => c.cell.mode === 'non-stream')
    ? r.cells.filter((c) => c.cell.mode === 'non-stream')
    : r.cells;
  const heaviest = candidates.reduce((a, b) => (b.cell.concurrency > a.cell.concurrency ? b : a));
  const cpu = heaviest.cpuUsPerRequest;
  const pipeline = (cpu.worker ?? 0) + (cpu.redis ?? 0) + (cpu.postgres ?? 0);
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  bullets.push(
    `Throughput ratio (gateway/direct) ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}; ` +
      `the edge never used more than ${pct(maxCore)} of its core` +
      (saturated.length > 0 && minBusy >= SATURATED_PCT
        ? `, while the machine's ${r.machine.nproc} CPUs were at least ${pct(minBusy)} busy in every gateway run above ` +
          `concurrency 1: the bound is the whole pipeline sharing them, not the edge alone. `
        : '. ') +
      `At ${heaviest.cell.mode} c=${heaviest.cell.concurrency} a gateway request costs ` +
      `${us(total)} of CPU over all processes: edge ${us(cpu.edge ?? 0)}, log pipeline (worker ${us(cpu.worker ?? 0)}, ` +
      `Redis ${us(cpu.redis ?? 0)}, Postgres ${us(cpu.postgres ?? 0)}) ${us(pipeline)}, mock ${us(cpu.mock ?? 0)}; ` +
      `called directly the mock costs ${us(heaviest.directMockCpuUsPerRequest)}.`,
  );
  const nonStream = r.cells.filter((c) => c.cell.mode === 'non-stream');
  bullets.push(
    `Edge CPU per non-stream request: ${nonStream.map((c) => `${us(c.edgeCpuUsPerRequest)} at c=${c.cell.concurrency}`).join(', ')}.`,
  );
  bullets.push(memoryBullet(r));
  bullets.push(...tailBullets(r), ...floorBullets(r), ...peerBullets(r), ...scalingBullets(r));
  const p = r.profile;
  if (p) {
    const top = p.summary.components.slice(0, 3).map((s) => `${s.name} ${pct(s.pct)}`);
    const logShipping = p.summary.components
      .filter((s) => /BullMQ|ioredis/.test(s.name))
      .reduce((sum, s) => sum + s.pct, 0);
    const gc = p.summary.components.find((s) => s.name.includes('garbage'))?.pct ?? 0;
    bullets.push(
      `Edge profile (${p.cell.mode}, c=${p.cell.concurrency}): ${top.join('; ')}. ` +
        `Redis clients (log shipping, quota admission and settle: BullMQ and ioredis, their socket writes included) ${pct(logShipping)}, GC ${pct(gc)}.`,
    );
  }
  return bullets;
}

/** What the bare Node proxy added at c=1 beside the gateway: the machine's floor for one more hop. */
function floorBullets(r: BenchReport): string[] {
  const c1 = r.cells.filter((c) => c.cell.concurrency === 1 && c.floor);
  if (c1.length === 0) return [];
  const each = (f: (c: CellResult) => number): string =>
    c1.map((c) => `${c.cell.mode} ${ms(f(c))}`).join(', ');
  const t = r.ttft;
  const ttft = t.floor
    ? ` Time to first token: ${ms(t.floor.p50Ms - t.direct.p50Ms)} at p50 (gateway ${ms(t.gateway.p50Ms - t.direct.p50Ms)}).`
    : '';
  return [
    `Floor: a bare Node proxy (bench/floor-proxy.ts, Node's HTTP server and undici, nothing else), pinned and ` +
      `flagged like the edge, added at concurrency 1, p50: ${each((c) => c.floor!.addedP50Ms)} (gateway ` +
      `${each((c) => c.addedP50Ms)}); p99: ${each((c) => c.floor!.addedP99Ms)} (gateway ${each((c) => c.addedP99Ms)}).` +
      ttft +
      ` That much of the gateway's added latency is one more Node process between wrk and the mock on this machine.`,
  ];
}

function peerBullets(r: BenchReport): string[] {
  if (r.peer.status === 'unavailable') return [`${r.peer.name} was not measured: ${r.peer.reason}`];
  if (r.peer.status !== 'measured') return [];
  const label = r.peer.label;
  const cells = r.cells.filter((c) => c.peer !== null && c.cell.concurrency > 1);
  const parts = cells.map(
    (c) =>
      `${c.cell.mode} c=${c.cell.concurrency} ${Math.round(c.peer!.rps)} req/s and ${us(c.peer!.cpuUsPerRequest)} CPU/req ` +
      `(gateway ${Math.round(c.gateway.rps)} req/s, ${us(c.edgeCpuUsPerRequest)})`,
  );
  const c1 = r.cells.filter((c) => c.peer !== null && c.cell.concurrency === 1);
  const latency = c1.map((c) => `${c.cell.mode} ${ms(c.peer!.addedP50Ms)} (gateway ${ms(c.addedP50Ms)})`);
  const ttft = r.ttft.peer
    ? ` Added TTFT at p50: ${ms(r.ttft.peer.p50Ms - r.ttft.direct.p50Ms)} (gateway ${ms(r.ttft.gateway.p50Ms - r.ttft.direct.p50Ms)}).`
    : '';
  const errors = r.cells.reduce((sum, c) => sum + (c.peer?.errors ?? 0), 0);
  return [
    `${label}, same mock, load and pinning, without auth, quota or logging: ${parts.join('; ')}. ` +
      (latency.length > 0 ? `Added p50 at concurrency 1: ${latency.join(', ')}.` : '') +
      ttft +
      (errors > 0 ? ` ${errors} of its requests failed.` : '') +
      (r.peer.streamError ? ` Streams not measured: ${r.peer.streamError}.` : ''),
  ];
}

/** The heap's part in the tail: bytes a request allocates, and those it leaves for the old generation. */
function heapClause(allocated: number, promoted: number): string {
  if (!Number.isFinite(allocated)) return '';
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
  return (
    ` Each request allocated ${kb(allocated)} on the edge's heap` +
    (Number.isFinite(promoted) ? ` and promoted ${kb(promoted)} to its old generation.` : '.')
  );
}

/** The request's time inside the edge at p99 (see "Inside the edge"), as a sentence; empty when not read. */
function insideClause(t: EdgeRuntimeSummary, clientP99Ms: number): string {
  const r = t.requestTimes;
  if (r === null) return '';
  return (
    ` The edge held a request ${r.held.p99.toFixed(2)} ms at p99 (the client saw ${clientP99Ms.toFixed(2)} ms), its upstream call took ` +
    `${r.upstream.p99.toFixed(2)} ms at p99, and its own time was ${r.own.p50.toFixed(2)} ms at p50 and ${r.own.p99.toFixed(2)} ms at p99.`
  );
}

/** What the c=1 tail is made of, from the edge's runtime figures (see "Where the tail comes from"). */
function tailBullets(r: BenchReport): string[] {
  return r.cells
    .filter((c) => c.cell.concurrency === 1 && c.edgeRuntime !== null)
    .map((c) => {
      const t = c.edgeRuntime!;
      const wait = c.cpuWaitUsPerRequest;
      return (
        `Tail, ${c.cell.mode} c=1 (added p99 ${c.addedP99Ms >= 0 ? '+' : ''}${c.addedP99Ms.toFixed(2)} ms): the edge's event loop was late by ` +
        `${t.loopDelayP99Ms.toFixed(2)} ms at p99 and ${t.loopDelayP999Ms.toFixed(2)} ms at p99.9; GC paused it ` +
        `${t.gcPausesPerSecond.toFixed(1)} times/s for ${t.gcMsPerSecond.toFixed(1)} ms/s (longest ${t.gcMaxMs.toFixed(1)} ms, ` +
        `${t.gcOver5msPerSecond.toFixed(1)}/s over 5 ms); its main thread waited ${(wait.gateway.edge ?? Number.NaN).toFixed(0)} µs/req ` +
        `for its CPU; the mock waited ${(wait.gateway.mock ?? Number.NaN).toFixed(0)} µs/req in gateway runs and ` +
        `${(wait.direct.mock ?? Number.NaN).toFixed(0)} in direct ones, whose p99 was ${c.direct.p99Ms.toFixed(2)} ms.` +
        insideClause(t, c.gateway.p99Ms) +
        heapClause(t.allocatedBytesPerRequest, t.promotedBytesPerRequest)
      );
    });
}

/** The edge's RSS, and what it was made of at its highest (where the runtime hook read it). */
function memoryBullet(r: BenchReport): string {
  const tokenizer =
    r.edgeTokenizerRssMb !== undefined
      ? `, ${Math.round(r.edgeTokenizerRssMb)} MB once it loaded its tokenizer's tables (before any load)`
      : '';
  const head = `Edge memory: ${Math.round(r.edgeBootRssMb)} MB RSS after boot${tokenizer}, ${Math.round(r.edgePeakRssMb)} MB peak (VmHWM) by the end.`;
  const highest = r.cells
    .flatMap((c) => (c.edgeRuntime?.memoryAtPeak ? [{ cell: c.cell, m: c.edgeRuntime.memoryAtPeak }] : []))
    .reduce<{ cell: BenchReport['cells'][number]['cell']; m: MemoryAtPeak } | null>(
      (a, b) => (a === null || b.m.rss > a.m.rss ? b : a),
      null,
    );
  if (!highest) return head;
  const { m, cell } = highest;
  const mb = (n: number): string => `${Math.round(n)}`;
  const heap = m.newSpace + m.oldSpace + m.largeObjects + m.otherSpaces;
  const buffers = m.arrayBuffers + m.external;
  return (
    `${head} At the highest RSS sampled in a counted run (${mb(m.rss)} MB, ${cell.mode} c=${cell.concurrency}): ` +
    `V8 heap ${mb(heap)} MB (young ${mb(m.newSpace)}, old ${mb(m.oldSpace)}, large objects ${mb(m.largeObjects)}, ` +
    `code and the rest ${mb(m.otherSpaces)}), buffers and other external memory ${mb(buffers)} MB, and ` +
    `${mb(m.rss - heap - buffers)} MB outside both (the Node binary's pages, native allocations, thread stacks).`
  );
}

function scalingBullets(r: BenchReport): string[] {
  if (!r.scaling) return [];
  const rows = r.scaling.filter((x) => x.processes > 1 && x.speedup !== null);
  if (rows.length === 0) return [];
  const busy = Math.min(...r.scaling.map((x) => x.machineBusyPct));
  return [
    `Edge processes: ${rows
      .map(
        (x) =>
          `${x.processes} processes at c=${x.concurrency} served ${x.speedup!.toFixed(2)}x the requests/s of one (${Math.round(x.gatewayRps)} req/s, ${(x.edgeCorePct / 100).toFixed(2)} cores of edge CPU)`,
      )
      .join('; ')}.` +
      (busy >= SATURATED_PCT
        ? ` The machine's ${r.machine.nproc} CPUs were at least ${pct(busy)} busy in every scaling run: the mock, wrk, worker, Redis and Postgres share them, so a second edge process finds no idle CPU here (see Scaling).`
        : ' See Scaling for what shares those CPUs.'),
  ];
}
