import { describe, expect, it } from '@jest/globals';
import { Supervisor } from './supervisor.js';

/** Real (tiny) node children: the behaviour under test is process handling itself. */
function harness(restart = { initialDelayMs: 100, maxDelayMs: 400, stableAfterMs: 60_000 }) {
  const lines: string[] = [];
  const supervisor = new Supervisor({
    cwd: process.cwd(),
    env: process.env,
    restart,
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

  it('restarts a child that exits on its own, alone, doubling the delay up to the cap', async () => {
    const { supervisor, lines } = harness();
    supervisor.start(child('calm', 0));
    supervisor.start({ name: 'crash', stopOrder: 0, args: ['-e', 'process.exit(2)'] });
    const crashes = (): string[] => lines.filter((l) => l.startsWith('start error: crash exited'));
    await until(() => crashes().length === 5);
    await supervisor.stop(5000);
    // 100, 200, 400 ms, then the cap again and again: a crash loop never gives up.
    expect(crashes().map((l) => /restarting it in ([\d.]+) s \(restart (\d+)/.exec(l)?.slice(1))).toEqual([
      ['0.1', '1'],
      ['0.2', '2'],
      ['0.4', '3'],
      ['0.4', '4'],
      ['0.4', '5'],
    ]);
    expect(crashes()[0]).toMatch(/^start error: crash exited with code 2 after [\d.]+ s; restarting it in/);
    expect(lines.filter((l) => l.startsWith('start info: crash restarted (pid '))).toHaveLength(4);
    // The other child ran through it all and was stopped only by stop().
    expect(lines.filter((l) => l.startsWith('calm'))).toEqual([
      'calm stdout: ready',
      'calm stdout: bye calm',
    ]);
  }, 10_000);

  it('names the signal of a killed child, starts it again, and restarts nothing once stop() began', async () => {
    const { supervisor, lines } = harness();
    const code = `console.log('pid ' + process.pid); setInterval(() => {}, 1000);`;
    supervisor.start({ name: 'victim', stopOrder: 0, args: ['-e', code] });
    const pids = (): number[] =>
      lines.flatMap((l) => /^victim stdout: pid (\d+)$/.exec(l)?.slice(1) ?? []).map(Number);
    await until(() => pids().length === 1);
    process.kill(pids()[0]!, 'SIGKILL');
    await until(() => pids().length === 2);
    expect(lines.filter((l) => l.startsWith('start error'))).toEqual([
      expect.stringMatching(
        /^start error: victim was killed by SIGKILL after [\d.]+ s; restarting it in 0\.1 s/,
      ),
    ]);
    await supervisor.stop(5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((l) => l.startsWith('start error'))).toHaveLength(1);
    expect(pids()).toHaveLength(2);
  }, 10_000);
});
