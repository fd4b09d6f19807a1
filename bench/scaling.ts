import { SCALING_CONCURRENCIES } from './settings.js';
import { type CellResult, runCell, type WorkloadContext } from './workloads.js';

/** One edge process count at one concurrency: requests/s through the gateway, and what it cost. */
export interface ScalingRow {
  readonly processes: number;
  /** The CPUs the edge was pinned to (`taskset -c`). */
  readonly cpus: string;
  readonly concurrency: number;
  readonly directRps: number;
  readonly gatewayRps: number;
  readonly throughputRatio: number;
  /** Gateway req/s over the 1-process gateway req/s at the same concurrency (null without that row). */
  readonly speedup: number | null;
  readonly gatewayP50Ms: number;
  readonly gatewayP99Ms: number;
  /** Every edge process together. */
  readonly edgeCpuUsPerRequest: number;
  readonly edgeCorePct: number;
  readonly machineBusyPct: number;
  readonly edgePeakRssMb: number;
  readonly errors: number;
}

/**
 * Non-stream load at SCALING_CONCURRENCIES against an edge of each process count in turn
 * (`restartEdge` replaces the running edge), direct and gateway runs paired as in the main matrix.
 */
export async function runScaling(
  ctx: WorkloadContext,
  counts: readonly number[],
  restartEdge: (processes: number) => Promise<string>,
): Promise<ScalingRow[]> {
  const cells: { processes: number; cpus: string; result: CellResult }[] = [];
  for (const processes of counts) {
    const cpus = await restartEdge(processes);
    for (const concurrency of SCALING_CONCURRENCIES) {
      ctx.log(
        `scaling: ${processes} edge process(es) on CPUs ${cpus}, non-stream, concurrency ${concurrency}`,
      );
      cells.push({ processes, cpus, result: await runCell(ctx, { mode: 'non-stream', concurrency }) });
    }
  }
  return cells.map(({ processes, cpus, result: r }) => {
    const single = cells.find((c) => c.processes === 1 && c.result.cell.concurrency === r.cell.concurrency);
    return {
      processes,
      cpus,
      concurrency: r.cell.concurrency,
      directRps: r.direct.rps,
      gatewayRps: r.gateway.rps,
      throughputRatio: r.throughputRatio,
      speedup: single ? r.gateway.rps / single.result.gateway.rps : null,
      gatewayP50Ms: r.gateway.p50Ms,
      gatewayP99Ms: r.gateway.p99Ms,
      edgeCpuUsPerRequest: r.edgeCpuUsPerRequest,
      edgeCorePct: r.edgeCorePct,
      machineBusyPct: r.machineBusyPct.gateway,
      edgePeakRssMb: r.edgePeakRssMb,
      errors: r.errors,
    };
  });
}
