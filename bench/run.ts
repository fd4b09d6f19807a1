/**
 * `npm run bench`: the gateway's overhead over calling the mock provider directly. Sets up its own
 * database, key, mock, router, worker and edge (pinned to CPUs), runs the wrk matrix, the
 * time-to-first-token client and one profiled run, prints the results and writes
 * docs/benchmarks.md. Tears down what it started, on failure and Ctrl-C too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ColdBurstResult, coldBurstLine, runColdBurst } from './cold-burst.js';
import { countRequestLogRows, dropBenchData, LogQueueBacklog } from './data.js';
import { type HeapProfile, summariseHeapProfile } from './heap-profile-analysis.js';
import { type CpuProfile, summariseProfile } from './profile-analysis.js';
import { profiledRun } from './profile-run.js';
import { clockTicksPerSecond, machineFacts, treeRssKb } from './proc-stats.js';
import { ProcessGroup, type Started } from './processes.js';
import { keptSection, renderDoc } from './doc.js';
import { type Peer, startPortkey } from './peer.js';
import { renderConsoleSummary, type BenchReport, type PeerReport } from './report.js';
import { runScaling } from './scaling.js';
import { isolateEdgeCpu } from './shared-services.js';
import { chatBody, LOAD_CPU, MOCK_BEHAVIOUR, MODEL, readSettings } from './settings.js';
import {
  configureMock,
  cpuGroups,
  edgeCpus,
  everyEdgeProcess,
  freePort,
  loadEdgeTokenizer,
  gatewayEnv,
  pickPorts,
  prepareDatabase,
  runtimeStatsFile,
  startEdge,
  startFloor,
  startStack,
  type Stack,
  STOP_ORDER,
  waitForRouterRoutes,
  writeBenchConfig,
} from './stack.js';
import { measureTtft } from './ttft.js';
import { runWrk } from './wrk.js';
import { type Cell, type CellResult, runCell, waitForDrain, type WorkloadContext } from './workloads.js';

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench/run.js -> repo root
const started = Date.now();
const log = (line: string): void => {
  const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  console.log(`[bench ${s}s] ${line}`);
};

const settings = readSettings();
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = join(root, 'bench/results', stamp);
const logDir = join(resultsDir, 'logs');
mkdirSync(logDir, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
const group = new ProcessGroup(root, logDir);
let backlog: LogQueueBacklog | null = null;
let isolation: ReturnType<typeof isolateEdgeCpu> | null = null;

let tearingDown: Promise<void> | null = null;
let interrupted = false;
function teardown(): Promise<void> {
  tearingDown ??= (async () => {
    await backlog?.close().catch(() => undefined);
    await group.stopAll(STOP_ORDER);
    isolation?.restore();
    if (!settings.keepData) await dropBenchData(settings, log);
    rmSync(scratch, { recursive: true, force: true });
  })();
  return tearingDown;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted = true;
    log(`${signal}: tearing down`);
    void teardown().finally(() => process.exit(130));
  });
}
process.on('exit', () => group.killAllNow());

/** The edge in use (and its process count): replaced for the scaling runs and the profiled one. */
const edgeRef: { current: Started | null; processes: number } = { current: null, processes: 1 };

/** Installs and starts the peer gateway when asked for; a failure is reported, never fatal. */
async function setUpPeer(
  mockUrl: string,
  apiKey: string,
): Promise<{ peer: Peer | null; report: PeerReport }> {
  if (settings.peer === null) return { peer: null, report: { status: 'off' } };
  log(`installing and starting Portkey's gateway (${settings.peerVersion}) beside ours`);
  const setup = await startPortkey(group, join(scratch, 'portkey'), {
    version: settings.peerVersion,
    port: await freePort(),
    mockUrl,
    apiKey,
  });
  if (!setup.ok) {
    log(`PORTKEY NOT MEASURED: ${setup.reason}`);
    return { peer: null, report: { status: 'unavailable', name: 'Portkey', reason: setup.reason } };
  }
  const { peer } = setup;
  log(`${peer.label} on ${peer.url}${peer.streamError ? `; streams not measured: ${peer.streamError}` : ''}`);
  return {
    peer,
    report: {
      status: 'measured',
      label: peer.label,
      version: peer.version,
      notes: peer.notes,
      streamError: peer.streamError,
    },
  };
}

async function setUp(): Promise<{
  stack: Stack;
  env: NodeJS.ProcessEnv;
  ctx: WorkloadContext;
  peer: Peer | null;
  peerReport: PeerReport;
  floorUrl: string;
}> {
  // A run interrupted hard (SIGKILL) leaves its database and keys: start clean.
  await dropBenchData(settings);
  const ports = await pickPorts();
  const env: NodeJS.ProcessEnv = {
    ...gatewayEnv(settings, ports, writeBenchConfig(root, scratch, ports.mock)),
    BENCH_RUNTIME_STATS: join(scratch, 'edge-runtime.json'),
  };
  const apiKey = await prepareDatabase(group, env);
  log('database migrated, key created; starting mock, router, worker, edge');
  const stack = await startStack(group, root, env, apiKey, settings.edgeNodeFlags);
  edgeRef.current = stack.edge;
  await waitForRouterRoutes(stack.edgeUrl);

  const bodyFiles = { 'non-stream': join(scratch, 'chat.json'), stream: join(scratch, 'chat-stream.json') };
  writeFileSync(bodyFiles['non-stream'], chatBody(false));
  writeFileSync(bodyFiles.stream, chatBody(true));
  backlog = new LogQueueBacklog(settings);
  const { peer, report: peerReport } = await setUpPeer(stack.mockUrl, apiKey);
  const floorRuntimeStatsFile = join(scratch, 'floor-runtime.json');
  const floor = await startFloor(group, root, env, {
    port: await freePort(),
    mockUrl: stack.mockUrl,
    runtimeStats: floorRuntimeStatsFile,
  });
  log(`floor proxy (bench/floor-proxy.ts) on ${floor.url}`);
  // Both are stopped before the scaling runs: from then on they are not measured.
  const running = (name: string, pid: number): number | undefined => (group.pidOf(name) ? pid : undefined);
  const floorPid = (): number | undefined => running('floor', floor.process.pid);
  const peerPid = (): number | undefined => (peer ? running('portkey', peer.process.pid) : undefined);
  const edgePid = (): number => edgeRef.current!.pid;
  const ctx: WorkloadContext = {
    settings,
    group,
    backlog,
    clockTicks: clockTicksPerSecond(),
    apiKey,
    urls: {
      direct: stack.mockUrl,
      gateway: stack.edgeUrl,
      get floor() {
        return floorPid() ? floor.url : undefined;
      },
      ...(peer ? { peer: peer.url } : {}),
    },
    headers: peer ? { peer: peer.headers } : {},
    peerMeasures: (mode) =>
      peer !== null && peerPid() !== undefined && (mode === 'non-stream' || peer.streamError === null),
    bodyFiles,
    edgePid,
    edgeProcesses: () => edgeRef.processes,
    runtimeStatsFile: () => runtimeStatsFile(env, edgeRef.processes, false),
    floorRuntimeStatsFile,
    peerPid,
    floorPid,
    cpuGroups: () => cpuGroups(group, edgePid(), { peer: peerPid(), floor: floorPid() }),
    log,
  };
  return { stack, env, ctx, peer, peerReport, floorUrl: floor.url };
}

/** Every log the edge shipped should be a row: the proof that logging really ran. */
async function checkRequestLogs(ctx: WorkloadContext): Promise<BenchReport['logCheck']> {
  await waitForDrain(ctx);
  const health = await everyEdgeProcess(ctx.urls.gateway, ctx.edgeProcesses());
  const logCheck = {
    shipped: health.reduce((sum, h) => sum + h.logs.shipped, 0),
    rows: await countRequestLogRows(settings),
    failed: (await ctx.backlog.counts()).failed,
  };
  log(
    `request logs: edge shipped ${logCheck.shipped}, worker wrote ${logCheck.rows} rows, ${logCheck.failed} jobs failed`,
  );
  return logCheck;
}

/** Swaps in an edge with the profile hook and profiles one counted run. */
async function profileEdge(ctx: WorkloadContext, env: NodeJS.ProcessEnv): Promise<BenchReport['profile']> {
  const cell: Cell = { mode: 'non-stream', concurrency: 32 };
  const file = join(resultsDir, 'edge-nonstream-c32.cpuprofile');
  log(`profiling the edge: ${cell.mode}, concurrency ${cell.concurrency}`);
  await group.stop('edge');
  edgeRef.current = await startEdge(group, root, env, {
    profileFile: file,
    nodeFlags: settings.edgeNodeFlags,
  });
  edgeRef.processes = 1;
  const run = await profiledRun<CpuProfile>(ctx, edgeRef.current, cell, file);
  return { cell, rps: run.wrk.rps, file, summary: summariseProfile(run.profile) };
}

/** Swaps in an edge with the sampling heap profiler for each mode at c=32: where its bytes come from. */
async function heapProfileEdge(
  ctx: WorkloadContext,
  env: NodeJS.ProcessEnv,
): Promise<BenchReport['heapProfiles']> {
  const profiles: NonNullable<BenchReport['heapProfiles']>[number][] = [];
  for (const mode of ['non-stream', 'stream'] as const) {
    const cell: Cell = { mode, concurrency: 32 };
    const file = join(resultsDir, `edge-${mode.replace('-', '')}-c32.heapprofile`);
    log(`heap-profiling the edge: ${cell.mode}, concurrency ${cell.concurrency}`);
    await group.stop('edge');
    await group.stop('edge-profiled');
    edgeRef.current = await startEdge(group, root, env, {
      profileFile: file,
      profileKind: 'heap',
      nodeFlags: settings.edgeNodeFlags,
    });
    edgeRef.processes = 1;
    await loadEdgeTokenizer(ctx.urls.gateway, ctx.apiKey, MODEL);
    const run = await profiledRun<HeapProfile>(ctx, edgeRef.current, cell, file);
    profiles.push({ cell, file, summary: summariseHeapProfile(run.profile, run.wrk.requests) });
  }
  return profiles;
}

/** Requests/s with each edge process count asked for (those the machine has CPUs for). */
async function scalingRun(
  ctx: WorkloadContext,
  env: NodeJS.ProcessEnv,
  nproc: number,
): Promise<BenchReport['scaling']> {
  const counts = settings.edgeProcesses.filter((n) => n <= nproc);
  if (counts.length < settings.edgeProcesses.length)
    log(
      `scaling: skipping ${settings.edgeProcesses.filter((n) => n > nproc).join(', ')} processes (${nproc} CPUs)`,
    );
  if (counts.length < 2 && !counts.some((n) => n > 1)) return null;
  return runScaling(ctx, counts, async (processes) => {
    await group.stop('edge');
    edgeRef.current = await startEdge(group, root, env, { processes, nodeFlags: settings.edgeNodeFlags });
    edgeRef.processes = processes;
    await waitForRouterRoutes(ctx.urls.gateway);
    // A fresh edge's code is cold: one unrecorded run first, so every process count starts warm.
    await runWrk(group, {
      url: `${ctx.urls.gateway}/v1/chat/completions`,
      connections: 64,
      seconds: settings.warmupSeconds,
      bodyFile: ctx.bodyFiles['non-stream'],
      apiKey: ctx.apiKey,
    });
    return edgeCpus(processes);
  });
}

/** The cold-account burst on the running stack (the edge as started, one process). */
async function coldBurstRun(stack: Stack, edgePid: () => number): Promise<ColdBurstResult | null> {
  if (settings.coldAccounts === 0) return null;
  log(`cold-account burst: ${settings.coldAccounts} new accounts' first requests at once, then warm`);
  const result = await runColdBurst({
    edgeUrl: stack.edgeUrl,
    databaseUrl: settings.databaseUrl,
    accounts: settings.coldAccounts,
    warmKey: stack.apiKey,
    cpuGroups: () => cpuGroups(group, edgePid()),
  });
  log(coldBurstLine(result));
  return result;
}

async function main(): Promise<void> {
  const machine = machineFacts(); // before pinning: nproc counts the CPUs this process may use
  if (machine.nproc < 2)
    throw new Error('the bench pins the edge and the load to two different CPUs: need 2+');
  // The bench itself (wrk's parent, the TTFT client) stays off the edge's CPU.
  execFileSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
  isolation = isolateEdgeCpu(LOAD_CPU);
  log(`results and logs in ${resultsDir}; ${isolation.moved} running processes moved to CPU ${LOAD_CPU}`);

  const { stack, env, ctx, peer, peerReport, floorUrl } = await setUp();
  if (settings.only === 'cold-burst') {
    const result = await coldBurstRun(stack, ctx.edgePid);
    writeFileSync(join(resultsDir, 'cold-burst.json'), JSON.stringify(result, null, 2));
    console.log(
      `\n${result ? coldBurstLine(result) : 'Cold-account burst skipped (BENCH_COLD_ACCOUNTS=0).'}`,
    );
    return;
  }
  const edgeBootRssMb = treeRssKb(ctx.edgePid(), 'VmRSS') / 1024;
  await loadEdgeTokenizer(stack.edgeUrl, ctx.apiKey, MODEL);
  const edgeTokenizerRssMb = treeRssKb(ctx.edgePid(), 'VmRSS') / 1024;
  const mockBehaviour = await configureMock(stack.mockUrl, MOCK_BEHAVIOUR);
  log(`mock behaviour: ${JSON.stringify(MOCK_BEHAVIOUR)}`);

  const cells: CellResult[] = [];
  for (const mode of ['non-stream', 'stream'] as const) {
    for (const concurrency of settings.concurrencies) {
      log(`${mode}, concurrency ${concurrency}`);
      cells.push(await runCell(ctx, { mode, concurrency }));
    }
  }
  const streamPeer = peer && ctx.peerMeasures('stream') ? peer : null;
  log(
    `time to first token: ${settings.ttftRequests} sequential streams each, direct, via the gateway` +
      (streamPeer ? ` and via ${streamPeer.label}` : ''),
  );
  const ttft = await measureTtft(
    {
      direct: { origin: stack.mockUrl, apiKey: ctx.apiKey },
      gateway: { origin: stack.edgeUrl, apiKey: ctx.apiKey },
      floor: { origin: floorUrl, apiKey: ctx.apiKey },
      ...(streamPeer
        ? { peer: { origin: streamPeer.url, apiKey: ctx.apiKey, headers: streamPeer.headers } }
        : {}),
    },
    chatBody(true),
    settings.ttftRequests,
  );
  const edgePeakRssMb = treeRssKb(ctx.edgePid(), 'VmHWM') / 1024;
  const coldBurst = await coldBurstRun(stack, ctx.edgePid);
  const logCheck = await checkRequestLogs(ctx);
  // Idle from here on, but off the edge's CPU all the same.
  await Promise.all([group.stop('portkey'), group.stop('floor')]);
  const scaling = await scalingRun(ctx, env, machine.nproc);
  const profile = settings.skipProfile ? null : await profileEdge(ctx, env);
  const heapProfiles = settings.skipProfile ? null : await heapProfileEdge(ctx, env);

  const report: BenchReport = {
    date: new Date(),
    minutes: (Date.now() - started) / 60_000,
    machine,
    settings,
    mockBehaviour,
    cells,
    ttft,
    edgePeakRssMb,
    edgeBootRssMb,
    edgeTokenizerRssMb,
    logCheck,
    profile,
    heapProfiles,
    peer: peerReport,
    scaling,
    coldBurst,
  };
  writeFileSync(join(resultsDir, 'results.json'), JSON.stringify(report, null, 2));
  mkdirSync(join(root, 'docs'), { recursive: true });
  const docPath = join(root, 'docs/benchmarks.md');
  const previous = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
  writeFileSync(docPath, renderDoc(report, root) + keptSection(previous));
  console.log(`\n${renderConsoleSummary(report)}`);
  log(`wrote docs/benchmarks.md and ${join(resultsDir, 'results.json')}`);
}

try {
  await main();
} catch (error) {
  process.exitCode = 1;
  // Teardown kills wrk and the servers under main(): that error is the interruption, not news.
  if (!interrupted) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    log(`process logs: ${logDir}`);
  }
} finally {
  await teardown();
}
