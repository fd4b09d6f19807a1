import { describe, expect, it } from '@jest/globals';
import { SeedBatcher, type SeedLease, type SeedLoad } from './seed-batcher.js';

/** A loader whose batches the test ends by hand. */
function held() {
  const batches: {
    accounts: readonly string[];
    leases: ReadonlyMap<string, SeedLease | undefined>;
    loaded: (account: string, reply: unknown) => void;
    done: () => void;
    fail: (e: Error) => void;
  }[] = [];
  const load: SeedLoad = (leases, loaded) =>
    new Promise<void>((done, fail) =>
      batches.push({ accounts: [...leases.keys()], leases, loaded, done, fail }),
    );
  return { batches, load };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SeedBatcher', () => {
  it('starts a lone account at once, and puts those asked meanwhile into the next batches', async () => {
    const { batches, load } = held();
    const seeds = new SeedBatcher(load, 1, 3);
    const first = seeds.seed('a');
    expect(batches.map((b) => b.accounts)).toEqual([['a']]);
    const rest = ['b', 'c', 'd', 'e'].map((x) => seeds.seed(x));
    // The same account again shares its load, whether waiting or on the wire.
    expect(seeds.seed('a')).toBe(first);
    expect(seeds.seed('b')).toBe(rest[0]);
    expect(batches).toHaveLength(1);
    batches[0]!.done();
    await first;
    await tick();
    expect(batches.map((b) => b.accounts)).toEqual([['a'], ['b', 'c', 'd']]);
    batches[1]!.done();
    await Promise.all(rest.slice(0, 3));
    await tick();
    expect(batches.map((b) => b.accounts)).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    batches[2]!.done();
    await rest[3];
    await tick();
    // Loaded: a later cold request of the same account loads again (its balance may have gone).
    void seeds.seed('a');
    expect(batches).toHaveLength(4);
  });

  it('rejects every account of a failed batch, and goes on with the next', async () => {
    const { batches, load } = held();
    const seeds = new SeedBatcher(load, 2, 10);
    const a = seeds.seed('a');
    const b = seeds.seed('b');
    expect(batches.map((x) => x.accounts)).toEqual([['a'], ['b']]);
    const c = seeds.seed('c');
    batches[0]!.fail(new Error('pool timeout'));
    await expect(a).rejects.toThrow('pool timeout');
    await tick();
    expect(batches[2]!.accounts).toEqual(['c']);
    batches[1]!.done();
    batches[2]!.done();
    await expect(Promise.all([b, c])).resolves.toEqual([undefined, undefined]);
  });

  it("grants the first asker's lease in the load, answering each account as soon as it is loaded", async () => {
    const { batches, load } = held();
    const seeds = new SeedBatcher(load, 1, 10);
    const lease: SeedLease = { keys: ['k'], args: ['a'] };
    const busy = seeds.seed('x');
    const first = seeds.seed('a', lease);
    const joiner = seeds.seed('a', { keys: ['k2'], args: [] });
    const other = seeds.seed('b');
    batches[0]!.done();
    await busy;
    await tick();
    expect(batches[1]!.leases).toEqual(
      new Map([
        ['a', lease],
        ['b', undefined],
      ]),
    );
    let answered = false;
    void first.then(() => (answered = true));
    batches[1]!.loaded('a', [0, '42']);
    await expect(first).resolves.toEqual([0, '42']);
    await expect(joiner).resolves.toBeUndefined();
    expect(answered).toBe(true); // before the batch (its COMMIT) ended
    batches[1]!.done();
    await expect(other).resolves.toBeUndefined();
  });
});
