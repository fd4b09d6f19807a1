import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../../../test/support/ts-register.mjs', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./testing/crash-at-boot.main.ts', import.meta.url));

describe('cluster primary', () => {
  it('exits 1, saying why, when workers keep dying before they listen', async () => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', REGISTER, SCRIPT], {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    // Restarted with backoff first, each death logged with the worker's pid.
    expect(
      lines.filter((l) =>
        /^crasher worker \d+ exit code 3 unexpectedly before listening; a new one in \d+ ms$/.test(l.msg),
      ).length,
    ).toBe(3);
    expect(
      lines.some(
        (l) => l.level === 'fatal' && /4 workers in a row died before listening; giving up/.test(l.msg),
      ),
    ).toBe(true);
  }, 30_000);
});
