import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { edgeCpus, loadEdgeTokenizer, runtimeStatsFile } from './stack.js';

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

describe('loadEdgeTokenizer', () => {
  let server: Server | null = null;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A stand-in edge answering every request with `status` and `body`; resolves its URL and what it received. */
  async function edge(status: number, body: string) {
    const seen: { url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        Object.assign(seen, { url: req.url, headers: req.headers, body: text });
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  it('asks the edge for a token count of the model with the key, and resolves on a count', async () => {
    const { url, seen } = await edge(200, '{"input_tokens": 8}');
    await loadEdgeTokenizer(url, 'sk-test', 'mock-gpt');
    expect(seen.url).toBe('/v1/messages/count_tokens');
    expect(seen.headers?.['x-api-key']).toBe('sk-test');
    expect(JSON.parse(seen.body!)).toEqual({
      model: 'mock-gpt',
      messages: [{ role: 'user', content: 'Hello' }],
    });
  });

  it('fails on a refusal or an answer without tokens: the tables would not be loaded', async () => {
    const refused = await edge(401, '{"error":"nope"}');
    await expect(loadEdgeTokenizer(refused.url, 'sk-test', 'mock-gpt')).rejects.toThrow(
      /\(401\): \{"error":"nope"\}/,
    );
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const empty = await edge(200, '{"input_tokens": 0}');
    await expect(loadEdgeTokenizer(empty.url, 'sk-test', 'mock-gpt')).rejects.toThrow(
      /local token count failed/,
    );
  });
});
