import { describe, expect, it } from '@jest/globals';
import { DEFAULT_PORTKEY_VERSION, readSettings } from './settings.js';

describe('readSettings defaults', () => {
  it('measures 1 and 2 edge processes and Portkey, with the documented knobs', () => {
    const s = readSettings({}, []);
    expect(s).toEqual({
      warmupSeconds: 3,
      durationSeconds: 8,
      pairs: 3,
      concurrencies: [1, 32, 64],
      ttftRequests: 300,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/gateway_bench',
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'bench',
      keepData: false,
      skipProfile: false,
      edgeProcesses: [1, 2],
      peer: 'portkey',
      peerVersion: DEFAULT_PORTKEY_VERSION,
      edgeNodeFlags: [],
      freeze: [],
      coldAccounts: 1000,
      only: null,
    });
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('runs the cold-account burst alone when asked, with as many accounts as asked (0 skips it)', () => {
    expect(readSettings({ BENCH_COLD_ACCOUNTS: '0' }, ['--only', 'cold-burst'])).toMatchObject({
      coldAccounts: 0,
      only: 'cold-burst',
    });
    expect(readSettings({ BENCH_ONLY: 'cold-burst', BENCH_COLD_ACCOUNTS: '250' }, []).coldAccounts).toBe(250);
    expect(() => readSettings({}, ['--only', 'cells'])).toThrow('--only (BENCH_ONLY) must be cold-burst');
    expect(() => readSettings({ BENCH_COLD_ACCOUNTS: '-1' }, [])).toThrow('BENCH_COLD_ACCOUNTS');
  });

  it('treats an empty env var as unset', () => {
    const s = readSettings({ BENCH_DURATION_S: '', BENCH_CONCURRENCY: '', BENCH_DATABASE_URL: '' }, []);
    expect(s.durationSeconds).toBe(8);
    expect(s.concurrencies).toEqual([1, 32, 64]);
    expect(s.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/gateway_bench');
  });
});

describe('readSettings env knobs', () => {
  it('reads numbers, lists and switches', () => {
    const s = readSettings(
      {
        BENCH_WARMUP_S: '1.5',
        BENCH_DURATION_S: '20',
        BENCH_PAIRS: '2.6',
        BENCH_CONCURRENCY: ' 4, 16 ,128',
        BENCH_TTFT_REQUESTS: '50',
        BENCH_KEEP_DATA: '1',
        BENCH_SKIP_PROFILE: '1',
        BENCH_EDGE_PROCESSES: '1,2,4',
        BENCH_PEER: 'none',
        BENCH_PEER_VERSION: 'latest',
        BENCH_REDIS_URL: 'redis://10.0.0.2:6380',
        BENCH_REDIS_PREFIX: 'my_bench-2',
        BENCH_DATABASE_URL: 'postgres://u:p@db:5433/perf_bench',
      },
      [],
    );
    expect(s).toMatchObject({
      warmupSeconds: 1.5,
      durationSeconds: 20,
      pairs: 3,
      concurrencies: [4, 16, 128],
      ttftRequests: 50,
      keepData: true,
      skipProfile: true,
      edgeProcesses: [1, 2, 4],
      peer: null,
      peerVersion: 'latest',
      redisUrl: 'redis://10.0.0.2:6380',
      redisPrefix: 'my_bench-2',
      databaseUrl: 'postgres://u:p@db:5433/perf_bench',
    });
  });

  it('switches on only with "1"', () => {
    const s = readSettings({ BENCH_KEEP_DATA: 'true', BENCH_SKIP_PROFILE: 'yes' }, []);
    expect(s.keepData).toBe(false);
    expect(s.skipProfile).toBe(false);
  });

  it('rejects numbers that are not positive', () => {
    expect(() => readSettings({ BENCH_DURATION_S: '0' }, [])).toThrow(
      'BENCH_DURATION_S must be a positive number, got "0"',
    );
    expect(() => readSettings({ BENCH_WARMUP_S: '-1' }, [])).toThrow(/BENCH_WARMUP_S/);
    expect(() => readSettings({ BENCH_PAIRS: 'three' }, [])).toThrow(/BENCH_PAIRS/);
  });

  it('rejects lists with anything but positive integers', () => {
    for (const raw of ['1,0', '1.5', '1,,2', '32,x'])
      expect(() => readSettings({ BENCH_CONCURRENCY: raw }, [])).toThrow(
        `BENCH_CONCURRENCY must be a comma-separated list of positive integers, got "${raw}"`,
      );
  });

  it('refuses a Redis prefix or database the teardown could drop by mistake', () => {
    expect(() => readSettings({ BENCH_REDIS_PREFIX: 'Bench!' }, [])).toThrow(/must match/);
    expect(() => readSettings({ BENCH_REDIS_PREFIX: 'gateway' }, [])).toThrow(/must contain "bench"/);
    expect(() => readSettings({ BENCH_DATABASE_URL: 'postgres://u@db:5432/gateway' }, [])).toThrow(
      /database named in BENCH_DATABASE_URL must contain "bench"/,
    );
  });

  it('rejects an unknown peer', () => {
    expect(() => readSettings({ BENCH_PEER: 'kong' }, [])).toThrow(
      '--peer (BENCH_PEER) must be portkey or none, got "kong"',
    );
  });
});

describe('readSettings flags', () => {
  it('reads --processes and --peer, as "--name value" or "--name=value"', () => {
    expect(readSettings({}, ['--processes', '1,4', '--peer', 'none'])).toMatchObject({
      edgeProcesses: [1, 4],
      peer: null,
    });
    expect(readSettings({}, ['--processes=3', '--peer=portkey'])).toMatchObject({
      edgeProcesses: [3],
      peer: 'portkey',
    });
  });

  it('wins over the env vars', () => {
    const env = { BENCH_EDGE_PROCESSES: '1,2,4', BENCH_PEER: 'none' };
    expect(readSettings(env, ['--processes', '1', '--peer', 'portkey'])).toMatchObject({
      edgeProcesses: [1],
      peer: 'portkey',
    });
    expect(readSettings(env, [])).toMatchObject({ edgeProcesses: [1, 2, 4], peer: null });
  });

  it('ignores flags it does not know and other flags sharing a prefix', () => {
    expect(readSettings({}, ['--verbose', '--peers=none', '--processesx=9'])).toMatchObject({
      edgeProcesses: [1, 2],
      peer: 'portkey',
    });
  });

  it('rejects invalid flag values, naming the knob', () => {
    expect(() => readSettings({}, ['--processes', '0'])).toThrow(/BENCH_EDGE_PROCESSES must be/);
    expect(() => readSettings({}, ['--processes=two'])).toThrow(/got "two"/);
    expect(() => readSettings({}, ['--peer', 'kong'])).toThrow(/--peer \(BENCH_PEER\)/);
  });

  it('refuses a flag without a value rather than running its default or reading the next flag', () => {
    expect(() => readSettings({}, ['--processes='])).toThrow('--processes needs a value');
    expect(() => readSettings({}, ['--processes'])).toThrow('--processes needs a value');
    expect(() => readSettings({}, ['--peer', '--processes', '1'])).toThrow('--peer needs a value');
  });

  it('reads an empty BENCH_PEER as unset, like every other knob', () => {
    expect(readSettings({ BENCH_PEER: '' }, []).peer).toBe('portkey');
  });
});

describe('BENCH_FREEZE', () => {
  it('lists the processes to stop during the counted gateway runs, each once', () => {
    const s = readSettings({ BENCH_FREEZE: ' worker,postgres , worker' }, []);
    expect(s.freeze).toEqual(['worker', 'postgres']);
    expect(Object.isFrozen(s.freeze)).toBe(true);
  });

  it('refuses a process it does not know: stopping the edge or the mock would measure nothing', () => {
    for (const raw of ['edge', 'mock', 'redis'])
      expect(() => readSettings({ BENCH_FREEZE: raw }, [])).toThrow(/BENCH_FREEZE names processes among/);
  });
});

describe('BENCH_EDGE_NODE_OPTIONS', () => {
  it('splits the edge flags on whitespace, in order, values kept', () => {
    const s = readSettings(
      { BENCH_EDGE_NODE_OPTIONS: '  --single-threaded-gc\t--max-semi-space-size=16 ' },
      [],
    );
    expect(s.edgeNodeFlags).toEqual(['--single-threaded-gc', '--max-semi-space-size=16']);
    expect(Object.isFrozen(s.edgeNodeFlags)).toBe(true);
  });

  it('is empty when unset or blank', () => {
    expect(readSettings({ BENCH_EDGE_NODE_OPTIONS: '   ' }, []).edgeNodeFlags).toEqual([]);
  });

  it('refuses a word that is not a flag: a lone value or a script would change what the edge runs', () => {
    for (const raw of ['--max-semi-space-size 16', 'evil.js', '-e', '--=1'])
      expect(() => readSettings({ BENCH_EDGE_NODE_OPTIONS: raw }, [])).toThrow(
        /BENCH_EDGE_NODE_OPTIONS must be Node flags/,
      );
  });
});
