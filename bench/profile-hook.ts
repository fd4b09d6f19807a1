/**
 * Preloaded into the profiled edge only (`node --import`): SIGUSR2 starts the V8 CPU profiler, the
 * next SIGUSR2 stops it and writes the profile to BENCH_CPU_PROFILE. Unlike `--cpu-prof`, the
 * profile covers just the counted run, not boot or warm-up, and needs no clean process exit.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const out = process.env.BENCH_CPU_PROFILE;
if (out) {
  const session = new Session();
  session.connect();
  let state: 'idle' | 'running' | 'done' = 'idle';
  const fail = (what: string, err: Error | null): boolean => {
    if (err) console.error(`profile hook: ${what} failed: ${err.message}`);
    return err !== null;
  };
  process.on('SIGUSR2', () => {
    if (state === 'idle') {
      state = 'running';
      session.post('Profiler.enable', (err) => {
        if (!fail('enable', err)) session.post('Profiler.start', (e) => fail('start', e));
      });
    } else if (state === 'running') {
      state = 'done';
      session.post('Profiler.stop', (err, result) => {
        if (fail('stop', err)) return;
        // Written aside, then renamed: the bench polls for the file and must never read half of it.
        writeFileSync(`${out}.partial`, JSON.stringify(result.profile));
        renameSync(`${out}.partial`, out);
      });
    }
  });
}
