import { describe, expect, it } from '@jest/globals';
import { MicroBatcher } from './micro-batcher.js';

function recorder(
  outcome: (items: readonly number[]) => Array<Error | null> = (items) => items.map(() => null),
) {
  const batches: number[][] = [];
  const write = async (items: readonly number[]) => {
    batches.push([...items]);
    return outcome(items);
  };
  return { batches, write };
}

describe('MicroBatcher', () => {
  it('writes as soon as maxSize items wait', async () => {
    const r = recorder();
    const b = new MicroBatcher({ maxSize: 3, maxWaitMs: 60_000, write: r.write });
    await Promise.all([1, 2, 3].map((n) => b.add(n)));
    expect(r.batches).toEqual([[1, 2, 3]]);
  });

  it('writes a partial batch after maxWaitMs', async () => {
    const r = recorder();
    const b = new MicroBatcher({ maxSize: 100, maxWaitMs: 10, write: r.write });
    const started = Date.now();
    await Promise.all([b.add(1), b.add(2)]);
    expect(r.batches).toEqual([[1, 2]]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9);
  });

  it('settles an item only after its batch was written', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const b = new MicroBatcher<number>({
      maxSize: 1,
      maxWaitMs: 1,
      write: async (items) => {
        await gate;
        return items.map(() => null);
      },
    });
    let settled = false;
    const done = b.add(1).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    release();
    await done;
    expect(settled).toBe(true);
  });

  it('rejects every item of a batch whose write throws', async () => {
    const b = new MicroBatcher<number>({
      maxSize: 2,
      maxWaitMs: 1,
      write: async () => {
        throw new Error('db down');
      },
    });
    const results = await Promise.allSettled([b.add(1), b.add(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('rejects only the items the writer reports as failed', async () => {
    const r = recorder((items) => items.map((n) => (n === 2 ? new Error('bad row') : null)));
    const b = new MicroBatcher({ maxSize: 3, maxWaitMs: 1, write: r.write });
    const results = await Promise.allSettled([b.add(1), b.add(2), b.add(3)]);
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('drain writes what waits without waiting for the timer', async () => {
    const r = recorder();
    const b = new MicroBatcher({ maxSize: 100, maxWaitMs: 60_000, write: r.write });
    const pending = b.add(7);
    await b.drain();
    await pending;
    expect(r.batches).toEqual([[7]]);
    expect(b.pending).toBe(0);
    expect(b.inFlight).toBe(0);
  });

  it('splits many items added at once into full batches written side by side', async () => {
    const gates: Array<() => void> = [];
    const batches: number[][] = [];
    const b = new MicroBatcher<number>({
      maxSize: 4,
      maxWaitMs: 60_000,
      write: async (items) => {
        batches.push([...items]);
        await new Promise<void>((resolve) => gates.push(resolve));
        return items.map(() => null);
      },
    });
    const items = Array.from({ length: 10 }, (_, i) => i);
    const all = Promise.all(items.map((n) => b.add(n)));
    // Two full batches left at once and are in flight together; the rest waits for time (or flush).
    expect(batches).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(b.inFlight).toBe(2);
    expect(b.pending).toBe(2);
    b.flush();
    expect(batches[2]).toEqual([8, 9]);
    for (const open of gates) open();
    await all;
    expect(b.inFlight).toBe(0);
  });

  it('flush writes what waits at once and leaves nothing behind', async () => {
    const r = recorder();
    const b = new MicroBatcher({ maxSize: 100, maxWaitMs: 60_000, write: r.write });
    const pending = Promise.all([b.add(1), b.add(2)]);
    b.flush();
    await pending;
    expect(r.batches).toEqual([[1, 2]]);
    b.flush();
    expect(r.batches).toHaveLength(1);
  });
});
