import { describe, expect, it } from '@jest/globals';
import { type HeapProfileNode, NOT_OURS, summariseHeapProfile } from './heap-profile-analysis.js';
import { heapSharesTable } from './report.js';

const DIST = 'file:///app/dist';
const node = (
  functionName: string,
  url: string,
  selfSize: number,
  children: HeapProfileNode[] = [],
  lineNumber = 0,
): HeapProfileNode => ({ callFrame: { functionName, url, lineNumber }, selfSize, children });

/**
 * (root) ─ handle (ours, 1,000) ─ JSON.stringify-like core frame (2,000)
 *        │                      └ request (undici, 3,000) ─ core frame (1,000)
 *        └ processTicksAndRejections (core, 500) ─ write (ioredis, 2,500; CommonJS: a path, not a URL)
 */
const PROFILE = {
  head: node('(root)', '', 0, [
    node(
      'handle',
      `${DIST}/apps/edge/src/pipeline/model-request.service.js`,
      1000,
      [
        node('stringify', 'node:internal/util', 2000),
        node('request', 'file:///app/node_modules/undici/lib/api/api-request.js', 3000, [
          node('', 'node:internal/streams/readable', 1000),
        ]),
      ],
      59,
    ),
    node('processTicksAndRejections', 'node:internal/process/task_queues', 500, [
      node('write', '/app/node_modules/ioredis/built/Redis.js', 2500),
    ]),
  ]),
};

describe('summariseHeapProfile', () => {
  const s = summariseHeapProfile(PROFILE, 10);
  const by = (shares: typeof s.components): Record<string, number> =>
    Object.fromEntries(shares.map((x) => [x.name, x.bytesPerRequest]));

  it('divides every byte sampled by the requests', () => {
    expect(s.totalBytes).toBe(10_000);
    expect(s.bytesPerRequest).toBe(1000);
  });

  it('charges core frames to the nearest library or code of ours up the stack', () => {
    expect(by(s.components)).toEqual({
      'our code (apps/edge, libs)': 300,
      'undici (upstream HTTP client)': 400,
      ioredis: 250,
      'Node HTTP server, streams, event loop (no library on the stack)': 50,
    });
    expect(s.components[0]).toEqual({ name: 'undici (upstream HTTP client)', bytesPerRequest: 400, pct: 40 });
  });

  it('names the nearest function of ours on the stack, however deep in a library the bytes were allocated', () => {
    expect(by(s.ourCallers)).toEqual({
      'handle dist/apps/edge/src/pipeline/model-request.service.js:60': 700,
      [NOT_OURS]: 300,
    });
  });

  it('lists allocating functions by their self bytes, the largest first', () => {
    expect(s.sites.map((x) => x.name)).toEqual([
      'request node_modules/undici/lib/api/api-request.js:1',
      'write node_modules/ioredis/built/Redis.js:1',
      'stringify node:internal/util:1',
      'handle dist/apps/edge/src/pipeline/model-request.service.js:60',
      '(anonymous) node:internal/streams/readable:1',
      'processTicksAndRejections node:internal/process/task_queues:1',
    ]);
  });
});

describe('heapSharesTable', () => {
  it('gives each share in percent and bytes per request', () => {
    const t = heapSharesTable('component', [{ name: 'ioredis', bytesPerRequest: 1234.5, pct: 12.34 }]);
    expect(t.split('\n')).toEqual([
      '| share of bytes | bytes per request | component |',
      '| --- | --- | --- |',
      '| 12.3 % | 1,235 | `ioredis` |',
    ]);
  });
});
