import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type RequestLogJob } from '#libs/queue';
import { LogSpool } from './log-spool.js';

/**
 * Several writers in one directory: the edge's cluster workers (EDGE_PROCESSES) share the pod's
 * spool directory, as edges sharing a ReadWriteMany volume do.
 */
const log = (id: string): RequestLogJob => ({ requestId: id }) as unknown as RequestLogJob;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spool-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LogSpool with several writers in one directory', () => {
  it('gives each writer a file of its own', () => {
    const [a, b] = [new LogSpool(dir), new LogSpool(dir)];
    a.append([log('a1')]);
    b.append([log('b1')]);
    a.append([log('a2')]);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("replays a dead writer's unfinished file once it has been quiet, and a finished one at once", async () => {
    const dead = new LogSpool(dir);
    dead.append([log('d1'), log('d2')]);
    const finished = new LogSpool(dir);
    finished.append([log('f1')]);
    finished.finish();
    // A new worker (a restart, or the next pod on a shared volume): the dead writer's file may
    // still be written to, so it waits; the finished one is taken at once.
    const next = new LogSpool(dir);
    const now = Date.now();
    const early = next.seal(now);
    expect(early).toHaveLength(1);
    expect(early[0]).toMatch(/\.done\.jsonl$/);
    // Past the 10 s of quiet with a millisecond to spare: a file's mtime has sub-millisecond
    // precision and can fall after `now` (Date.now() is truncated to the millisecond).
    const later = next.seal(now + 10_001);
    expect(later).toHaveLength(2);
    const claimed = next.claim(later.find((n) => !n.includes('.done'))!)!;
    expect((await next.read(claimed)).logs.map((l) => l.requestId)).toEqual(['d1', 'd2']);
    // Another worker looking at the same moment cannot take the claimed file.
    expect(new LogSpool(dir).claim(later.find((n) => !n.includes('.done'))!)).toBeNull();
  });
});
