import { describe, expect, it } from '@jest/globals';
import { type ExitInfo } from './shutdown.js';
import { Supervisor } from './supervisor.js';

/** Real (tiny) node children: the behaviour under test is process handling itself. */
function harness() {
  const lines: string[] = [];
  const supervisor = new Supervisor({
    cwd: process.cwd(),
    env: process.env,
    sink: {
      childLine: (app, _pid, stream, text) => lines.push(`${app} ${stream}: ${text}`),
      say: (level, message) => lines.push(`start ${level}: ${message}`),
    },
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
  it('hands over each line with its child and stream, and runs one-shot children to completion', async () => {
    const { supervisor, lines } = harness();
    const exit = await supervisor.run({
      name: 'job',
      stopOrder: 0,
      args: [
        '-e',
        'console.log("a\\nb"); console.error("oops"); process.stdout.write("tail"); process.exit(3)',
      ],
    });
    expect(exit).toEqual({ code: 3, signal: null });
    expect(lines.filter((l) => l.includes('stdout'))).toEqual([
      'job stdout: a',
      'job stdout: b',
      'job stdout: tail',
    ]);
    expect(lines.filter((l) => l.includes('stderr'))).toEqual(['job stderr: oops']);
  });

  it('stops children stage by stage: a later stage only once the earlier one has exited', async () => {
    const { supervisor, lines } = harness();
    supervisor.start(child('mock', 1));
    supervisor.start(child('edge', 0, 'exit', 200));
    await until(() => lines.filter((l) => l.endsWith('ready')).length === 2);
    await supervisor.stop(5000);
    expect(lines.filter((l) => l.includes('bye'))).toEqual([
      'edge stdout: bye edge',
      'mock stdout: bye mock',
    ]);
  }, 10_000);

  it('SIGKILLs what ignores SIGTERM once the grace period is over', async () => {
    const { supervisor, lines } = harness();
    supervisor.start(child('stuck', 0, 'ignore'));
    await until(() => lines.includes('stuck stdout: ready'));
    const started = Date.now();
    await supervisor.stop(300);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(lines).toContain('start warn: stuck did not stop within 300 ms: SIGKILL');
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
