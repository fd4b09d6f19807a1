import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { FailureRun, isConnectionError, OutageLog } from './outage-log.js';

/** A stand-in for an ioredis client: the events OutageLog listens to, and disconnect(). */
class Connection extends EventEmitter {
  disconnects = 0;
  disconnect(): void {
    this.disconnects++;
  }
}

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    logger: { warn: (m: string) => lines.push(`warn ${m}`), log: (m: string) => lines.push(`log ${m}`) },
  };
}

const refused = new Error('connect ECONNREFUSED 127.0.0.1:6379');

describe('OutageLog', () => {
  it('warns once per outage, however many connections fail and retry, and says when all are back', () => {
    const { lines, logger } = recorder();
    const outages = new OutageLog(logger);
    const a = new Connection();
    const b = new Connection();
    outages.watch(a, 'edge');
    outages.watch(b, 'edge-sub');
    for (let attempt = 0; attempt < 20; attempt++) {
      a.emit('error', refused);
      b.emit('error', refused);
    }
    expect(outages.reachable).toBe(false);
    a.emit('ready');
    expect(lines).toHaveLength(1);
    b.emit('ready');
    expect(outages.reachable).toBe(true);
    expect(lines).toEqual([
      'warn unreachable (edge: connect ECONNREFUSED 127.0.0.1:6379); retrying, logged again once it is back',
      expect.stringMatching(/^log reachable again after \d+ ms$/),
    ]);

    a.emit('error', refused);
    expect(lines).toHaveLength(3);
  });

  it('a connection closed for good while down no longer holds the outage open', () => {
    const { lines, logger } = recorder();
    const outages = new OutageLog(logger);
    const a = new Connection();
    outages.watch(a, 'edge');
    a.emit('error', refused);
    a.emit('end');
    expect(outages.reachable).toBe(true);
    expect(lines).toHaveLength(1);
  });

  it('says Redis is back when the last connection down closes for good after another came back', () => {
    const { lines, logger } = recorder();
    const outages = new OutageLog(logger);
    const a = new Connection();
    const b = new Connection();
    outages.watch(a, 'worker');
    outages.watch(b, 'worker-blocking');
    a.emit('error', refused);
    b.emit('error', refused);
    a.emit('ready');
    b.emit('end');
    expect(outages.reachable).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(/^warn unreachable/),
      expect.stringMatching(/^log reachable again after \d+ ms$/),
    ]);
  });

  it('a connection closed while it waits to reconnect (ioredis then emits no end) no longer holds the outage open', () => {
    const { lines, logger } = recorder();
    const outages = new OutageLog(logger);
    const [a, b, replaced] = [new Connection(), new Connection(), new Connection()];
    outages.watch(a, 'router');
    outages.watch(b, 'router-samples');
    outages.watch(replaced, 'router-samples-old');
    for (const c of [a, b, replaced]) c.emit('error', refused);
    replaced.disconnect();
    expect(replaced.disconnects).toBe(1);
    a.emit('ready');
    b.emit('ready');
    expect(outages.reachable).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(/^warn unreachable/),
      expect.stringMatching(/^log reachable again after \d+ ms$/),
    ]);
  });

  it('a connection that never failed says nothing when ready', () => {
    const { lines, logger } = recorder();
    const outages = new OutageLog(logger);
    const a = new Connection();
    outages.watch(a, 'edge');
    a.emit('ready');
    expect(lines).toEqual([]);
  });

  it('tells connection failures from other errors', () => {
    expect(
      isConnectionError(Object.assign(new Error('x'), { syscall: 'connect', code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isConnectionError(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe(
      true,
    );
    expect(isConnectionError(new Error('Connection is closed.'))).toBe(true);
    for (const given of [
      "Stream isn't writeable and enableOfflineQueue options is false",
      "Cluster isn't ready and enableOfflineQueue options is false",
      'Command timed out',
    ])
      expect(isConnectionError(new Error(given))).toBe(true);
    expect(isConnectionError(new Error('ERR unknown command'))).toBe(false);
  });
});

describe('FailureRun', () => {
  it('warns at the first of a run of failures, says when it works again, and starts over after', () => {
    const { lines, logger } = recorder();
    const publishing = new FailureRun(logger, 'publishing routes');
    publishing.succeeded();
    for (let cycle = 0; cycle < 10; cycle++) publishing.failed(refused);
    publishing.succeeded();
    publishing.succeeded();
    publishing.failed(new Error('Command timed out'));
    expect(publishing.failing).toBe(true);
    expect(lines).toEqual([
      'warn publishing routes failed (connect ECONNREFUSED 127.0.0.1:6379); logged again once it works',
      expect.stringMatching(/^log publishing routes works again after 10 failures in \d+ ms$/),
      'warn publishing routes failed (Command timed out); logged again once it works',
    ]);
    publishing.succeeded();
    expect(lines[3]).toMatch(/^log publishing routes works again after 1 failure in \d+ ms$/);
  });
});
