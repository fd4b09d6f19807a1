import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AppProcess } from '../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { type FaultStack, startFaultStack, waitUntil } from './fault-stack.js';

/**
 * One edge with EDGE_PROCESSES=2, as real processes: a cluster primary and two workers on one
 * port. The tests run in order on the same edge (booting it costs most of the time): both workers
 * serve, /metrics sums them, a killed worker is replaced without the totals dropping, SIGTERM
 * drains both and exits 0.
 */
let t: TestDatabase;
let stack: FaultStack;
let edge: AppProcess;
let apiKey: string;

interface Answer {
  readonly status: number;
  readonly body: string;
  /** Resolves with the first body chunk. */
  readonly first: Promise<string>;
}

/**
 * One request on a connection of its own (no keep-alive pool), so the primary hands each request
 * to the next worker in turn. `done` resolves once the whole body arrived.
 */
function send(path: string, body?: object): { first: Promise<string>; done: Promise<Answer> } {
  let markFirst: (chunk: string) => void = () => undefined;
  const first = new Promise<string>((resolve) => (markFirst = resolve));
  const done = new Promise<Answer>((resolve, reject) => {
    const req = request(
      `${edge.url}${path}`,
      {
        agent: false,
        method: body ? 'POST' : 'GET',
        headers: body ? { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text === '') markFirst(chunk);
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, first }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
  return { first, done };
}

const get = (path: string): Promise<Answer> => send(path).done;
const chat = (stream = false): Promise<Answer> =>
  send('/v1/chat/completions', { model: 'mock-gpt', stream, messages: [{ role: 'user', content: 'hi' }] })
    .done;

const healthPid = async (): Promise<number> =>
  (JSON.parse((await get('/healthz')).body) as { pid: number }).pid;

/** Worker pids seen on /healthz until `count` distinct ones answered. */
async function workerPids(count: number, exclude: ReadonlySet<number> = new Set()): Promise<Set<number>> {
  const seen = new Set<number>();
  await waitUntil(
    `${count} edge workers answering`,
    async () => {
      const pid = await healthPid();
      if (!exclude.has(pid)) seen.add(pid);
      return seen.size >= count;
    },
    30_000,
  );
  return seen;
}

const parentOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

/** The pod's count of answered chat completions, as Prometheus reads it from /metrics. */
async function chatCount(): Promise<number> {
  const text = (await get('/metrics')).body;
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('http_server_request_duration_count{') &&
        l.includes('http_route="/v1/chat/completions"') &&
        l.includes('http_response_status_code="200"'),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const keyLookups = async (): Promise<Map<number, number>> => {
  const byPid = new Map<number, number>();
  while (byPid.size < 2) {
    const h = JSON.parse((await get('/healthz')).body) as {
      pid: number;
      keyCache: { hits: number; misses: number };
    };
    byPid.set(h.pid, h.keyCache.hits + h.keyCache.misses);
  }
  return byPid;
};

beforeAll(async () => {
  t = await createTestDatabase('edge_cluster');
  stack = await startFaultStack({ label: 'edge_cluster', databaseUrl: t.url, redisUrl: TEST_REDIS_URL });
  // Two workers compile the TypeScript sources at once: slower to boot than one process.
  edge = await stack.start('edge', { env: { EDGE_PROCESSES: '2' }, readyTimeoutMs: 60_000 });
  apiKey = (await stack.createKey()).raw;
}, 90_000);

afterAll(async () => {
  await stack?.close();
  await t?.drop();
}, 60_000);

describe('edge with EDGE_PROCESSES=2', () => {
  let pids: Set<number>;

  it('answers on one port from two worker processes forked by the primary', async () => {
    pids = await workerPids(2);
    for (const pid of pids) expect(parentOf(pid)).toBe(edge.pid);
    const answers = await Promise.all([chat(), chat(), chat(), chat()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    // Each worker authenticated requests itself (its own key cache).
    const lookups = await keyLookups();
    expect([...lookups.keys()].sort()).toEqual([...pids].sort());
    for (const n of lookups.values()) expect(n).toBeGreaterThan(0);
  }, 40_000);

  it('serves /metrics from any worker with the requests of both', async () => {
    const before = await chatCount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => chat()));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Scrapes go to one worker then the other: each says the pod's total.
    expect(await chatCount()).toBe(before + 10);
    expect(await chatCount()).toBe(before + 10);
  });

  it('replaces a killed worker; requests keep being answered and the totals never drop', async () => {
    const before = await chatCount();
    const [victim, survivor] = [...pids] as [number, number];
    process.kill(victim, 'SIGKILL');
    await waitUntil(
      'the primary saw the worker die',
      async () => edge.output().includes(`edge worker ${victim} killed by SIGKILL unexpectedly`),
      10_000,
    );
    const meanwhile = await Promise.all(Array.from({ length: 5 }, () => chat()));
    expect(meanwhile.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const [replacement] = await workerPids(1, new Set([victim, survivor]));
    expect(parentOf(replacement!)).toBe(edge.pid);
    await workerPids(2, new Set([victim]));
    const after = await Promise.all([chat(), chat()]);
    expect(after.map((a) => a.status)).toEqual([200, 200]);
    // The dead worker's last counts stay in the sum: a counter that dropped would read as a reset.
    expect(await chatCount()).toBe(before + 7);
    pids = new Set([survivor, replacement!]);
  }, 40_000);

  it('SIGTERM: both workers drain their in-flight streams, then the primary exits 0', async () => {
    stack.mock.setBehaviour({ chunkCount: 10, chunkIntervalMs: 100 }); // ~1 s streams
    const streams = [0, 1].map(() =>
      send('/v1/chat/completions', {
        model: 'mock-gpt',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    await Promise.all(streams.map((s) => s.first));
    const exit = edge.stop();
    // Each worker had one stream in flight when the signal came, and drains it. (Read before the
    // exit: the helper deletes the log of a process that exited 0.)
    const drainedBy = (): number[] =>
      edge
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('draining 1 in-flight'))
        .map((l) => (JSON.parse(l) as { pid: number }).pid);
    await waitUntil('both workers draining', async () => drainedBy().length === 2, 10_000);
    expect(drainedBy().sort()).toEqual([...pids].sort());
    const answers = await Promise.all(streams.map((s) => s.done));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toContain('data: [DONE]');
    }
    // The primary exits 0 only when every worker did.
    expect(await exit).toBe(0);
  }, 40_000);
});
