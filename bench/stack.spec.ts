import { describe, expect, it } from '@jest/globals';
import { edgeCpus, runtimeStatsFile } from './stack.js';

describe('edgeCpus', () => {
  it('pins one process to the edge CPU alone', () => {
    expect(edgeCpus(1, 2)).toBe('0');
    expect(edgeCpus(1, 8)).toBe('0');
  });

  it('adds the CPUs the bench leaves free before the load CPU', () => {
    expect(edgeCpus(2, 4)).toBe('0,2');
    expect(edgeCpus(3, 4)).toBe('0,2,3');
    expect(edgeCpus(3, 8)).toBe('0,2,3');
  });

  it('shares the load CPU only when no other is left', () => {
    expect(edgeCpus(2, 2)).toBe('0,1');
    expect(edgeCpus(4, 4)).toBe('0,2,3,1');
  });

  it('never lists more CPUs than the machine has, nor fewer than one', () => {
    expect(edgeCpus(6, 4)).toBe('0,2,3,1');
    expect(edgeCpus(0, 4)).toBe('0');
  });
});

describe('runtimeStatsFile', () => {
  const env = { BENCH_RUNTIME_STATS: '/tmp/bench-runtime.json' };

  it('is the env file for a one-process edge without the profiler', () => {
    expect(runtimeStatsFile(env, 1, false)).toBe('/tmp/bench-runtime.json');
  });

  it('is null for several processes, for a profiled edge, or without the env var', () => {
    expect(runtimeStatsFile(env, 2, false)).toBeNull();
    expect(runtimeStatsFile(env, 1, true)).toBeNull();
    expect(runtimeStatsFile({}, 1, false)).toBeNull();
  });
});
