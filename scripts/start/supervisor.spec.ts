import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { type ExitInfo } from './shutdown.js';
import { Supervisor } from './supervisor.js';

/** Real (tiny) node children: the behaviour under test is process handling itself. */
function harness() {
  const stdout = new PassThrough();
  const lines: string[] = [];
  stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const supervisor = new Supervisor({
    cwd: process.cwd(),
    env: process.env,
    stdout,
    stderr: stdout,
    color: false,
    width: 5,
  });
  return { supervisor, lines };
}

/** A child that prints `ready`, and on SIGTERM prints `bye <name>` after `delayMs` (or never exits). */
function child(name: string, stopOrder: number, onTerm: 'exit' | 'ignore' = 'exit', delayMs = 0) {
  const handler =
    onTerm === 'exit'
      ? `() => setTimeout(() => { console.log('bye ${name}'); process.exit(0); }, ${delayMs})`
      : '() => {}';
  const code = `process.on('SIGTERM', ${handler}); console.log('ready'); setInterval(() => {}, 1000);`;
  return { name, stopOrder, args: ['-e', code] };
}

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('Supervisor', () => {
  it('prefixes child output and runs one-shot children to completion', async () => {
    const { supervisor, lines } = harness();
    const exit = await supervisor.run({
      name: 'job',
      stopOrder: 0,
      args: ['-e', 'console.log("a\\nb"); process.exit(3)'],
    });
    expect(exit).toEqual({ code: 3, signal: null });
    expect(lines).toEqual(['job   | a', 'job   | b']);
  });

  it('stops children stage by stage: a later stage only once the earlier one has exited', async () => {
    const { supervisor, lines } = harness();
    supervisor.start(child('mock', 1));
    supervisor.start(child('edge', 0, 'exit', 200));
    await until(() => lines.filter((l) => l.endsWith('ready')).length === 2);
    await supervisor.stop(5000);
    expect(lines.filter((l) => l.includes('bye'))).toEqual(['edge  | bye edge', 'mock  | bye mock']);
  }, 10_000);

  it('SIGKILLs what ignores SIGTERM once the grace period is over', async () => {
    const { supervisor, lines } = harness();
    supervisor.start(child('stuck', 0, 'ignore'));
    await until(() => lines.includes('stuck | ready'));
    const started = Date.now();
    await supervisor.stop(300);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(lines).toContain('start | stuck did not stop within 300 ms: SIGKILL');
  }, 10_000);

  it('reports an exit nobody asked for, but not exits during stop()', async () => {
    const { supervisor } = harness();
    const unexpected: [string, ExitInfo][] = [];
    supervisor.onUnexpectedExit((name, exit) => unexpected.push([name, exit]));
    supervisor.start({ name: 'crash', stopOrder: 0, args: ['-e', 'process.exit(2)'] });
    await until(() => unexpected.length === 1);
    expect(unexpected).toEqual([['crash', { code: 2, signal: null }]]);

    supervisor.start(child('calm', 0));
    await supervisor.stop(5000);
    expect(unexpected).toHaveLength(1);
  }, 10_000);
});
