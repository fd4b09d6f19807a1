import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Periodic } from './periodic.js';

describe('Periodic', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('skips a tick while a run is still going, reports a failure, and stop() waits for the run', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    const errors: string[] = [];
    const periodic = new Periodic(
      () => {
        runs++;
        if (runs === 2) return Promise.reject(new Error('db down'));
        return new Promise<void>((resolve) => (release = resolve));
      },
      (err) => errors.push(err.message),
    );
    periodic.start(100);
    jest.advanceTimersByTime(350); // three ticks, one run: the first has not finished
    expect(runs).toBe(1);
    release();
    await Promise.resolve();
    await Promise.resolve();
    jest.advanceTimersByTime(100); // the second run fails, reported
    await Promise.resolve();
    await Promise.resolve();
    expect(errors).toEqual(['db down']);
    jest.advanceTimersByTime(100); // a third run, still going at stop()
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    jest.advanceTimersByTime(1_000);
    expect(runs).toBe(3);
  });
});
