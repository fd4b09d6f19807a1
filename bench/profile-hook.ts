/**
 * Preloaded into the profiled edge only (`node --import`): SIGUSR2 starts a V8 profiler, the next
 * SIGUSR2 stops it and writes its profile: the CPU profiler to BENCH_CPU_PROFILE, or the sampling
 * heap profiler to BENCH_HEAP_PROFILE. Unlike `--cpu-prof` or `--heap-prof`, the profile covers
 * just the counted run, not boot or warm-up, and needs no clean process exit.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * Bytes between two heap samples: V8 samples one allocation per interval on average and scales
 * it, so a counted run's hundreds of MB give tens of thousands of samples at little cost.
 */
const HEAP_SAMPLING_INTERVAL = 16 * 1024;

interface Profiler {
  readonly out: string;
  readonly enable: string;
  readonly start: string;
  readonly startParams?: object;
  readonly stop: string;
  /** The profile in the stop command's result. */
  readonly read: (result: object) => unknown;
}

function profilerFromEnv(): Profiler | null {
  const cpu = process.env.BENCH_CPU_PROFILE;
  if (cpu)
    return {
      out: cpu,
      enable: 'Profiler.enable',
      start: 'Profiler.start',
      stop: 'Profiler.stop',
      read: (r) => (r as { profile: unknown }).profile,
    };
  const heap = process.env.BENCH_HEAP_PROFILE;
  if (heap)
    return {
      out: heap,
      enable: 'HeapProfiler.enable',
      start: 'HeapProfiler.startSampling',
      // Every allocation, not only what is still alive when sampling stops: a request's garbage
      // is what the young collections work through.
      startParams: {
        samplingInterval: HEAP_SAMPLING_INTERVAL,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      },
      stop: 'HeapProfiler.stopSampling',
      read: (r) => (r as { profile: unknown }).profile,
    };
  return null;
}

const profiler = profilerFromEnv();
if (profiler) {
  const session = new Session();
  session.connect();
  let state: 'idle' | 'running' | 'done' = 'idle';
  const fail = (what: string, err: Error | null): boolean => {
    if (err) console.error(`profile hook: ${what} failed: ${err.message}`);
    return err !== null;
  };
  // The inspector's post() is typed per method name; these are picked at run time.
  const post = session.post.bind(session) as (
    method: string,
    params: object | undefined,
    callback: (err: Error | null, result: object) => void,
  ) => void;
  process.on('SIGUSR2', () => {
    if (state === 'idle') {
      state = 'running';
      post(profiler.enable, undefined, (err) => {
        if (!fail('enable', err)) post(profiler.start, profiler.startParams, (e) => fail('start', e));
      });
    } else if (state === 'running') {
      state = 'done';
      post(profiler.stop, undefined, (err, result) => {
        if (fail('stop', err)) return;
        // Written aside, then renamed: the bench polls for the file and must never read half of it.
        writeFileSync(`${profiler.out}.partial`, JSON.stringify(profiler.read(result)));
        renameSync(`${profiler.out}.partial`, profiler.out);
      });
    }
  });
}
