import { describe, expect, it } from '@jest/globals';
import { describeExit, shutdownStages, withDeadline } from './shutdown.js';

describe('shutdownStages', () => {
  it('stops the front doors first, then what they call, then the upstream', () => {
    const started = [
      { name: 'mock-provider', stopOrder: 2 },
      { name: 'router', stopOrder: 1 },
      { name: 'worker', stopOrder: 1 },
      { name: 'edge', stopOrder: 0 },
      { name: 'console', stopOrder: 0 },
    ];
    expect(shutdownStages(started).map((stage) => stage.map((c) => c.name))).toEqual([
      ['edge', 'console'],
      ['router', 'worker'],
      ['mock-provider'],
    ]);
  });

  it('has no stages when nothing runs', () => {
    expect(shutdownStages([])).toEqual([]);
  });
});

describe('describeExit', () => {
  it('names the code or the signal', () => {
    expect(describeExit({ code: 3, signal: null })).toBe('exited with code 3');
    expect(describeExit({ code: null, signal: 'SIGKILL' })).toBe('was killed by SIGKILL');
  });
});

describe('withDeadline', () => {
  it('returns the value when it comes in time, the fallback otherwise', async () => {
    await expect(withDeadline(Promise.resolve('done'), 1000, 'late')).resolves.toBe('done');
    await expect(withDeadline(new Promise<string>(() => undefined), 10, 'late')).resolves.toBe('late');
  });
});
