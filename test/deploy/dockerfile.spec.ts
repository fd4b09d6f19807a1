import { spawnSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { readRepoFile, sourceExists } from './repo.js';
import { APP_NODE_FLAGS } from '#libs/runtime';

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with comments dropped and `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

const all = instructions(readRepoFile('Dockerfile'));
const lastFrom = all.map((i) => i.keyword).lastIndexOf('FROM');
const runtime = all.slice(lastFrom);
const runs = all.filter((i) => i.keyword === 'RUN').map((i) => i.args);

describe('Dockerfile', () => {
  it('is a multi-stage build whose runtime stage copies from earlier stages', () => {
    expect(all.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(2);
    expect(runtime.some((i) => i.keyword === 'COPY' && i.args.includes('--from='))).toBe(true);
  });

  it('installs exactly the lockfile (npm ci), and only production packages for the runtime', () => {
    const install = /\bnpm ci\b/;
    expect(runs.some((r) => /\bnpm install\b/.test(r))).toBe(false);
    expect(runs.some((r) => install.test(r) && !r.includes('--omit=dev'))).toBe(true);
    expect(runs.some((r) => install.test(r) && r.includes('--omit=dev'))).toBe(true);
    expect(runs.some((r) => /\bnpm run build\b/.test(r))).toBe(true);
  });

  it('runs the app as a non-root user', () => {
    const users = runtime.filter((i) => i.keyword === 'USER').map((i) => i.args.split(':')[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0']).not.toContain(users.at(-1));
  });

  it('listens on all interfaces in production mode', () => {
    const env = runtime
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bNODE_ENV=production\b/);
  });

  it('logs JSON lines even when the container is given a terminal', () => {
    const env = runtime
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bLOG_FORMAT=json\b/);
  });

  it('runs node with the same flags as npm start and the bench (APP_NODE_FLAGS)', () => {
    const env = runtime
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toContain(`NODE_OPTIONS="${APP_NODE_FLAGS.join(' ')}"`);
    expect(APP_NODE_FLAGS.some((f) => f.startsWith('--max-old-space-size='))).toBe(true);
    expect(APP_NODE_FLAGS.some((f) => f.startsWith('--max-semi-space-size='))).toBe(true);
  });

  it('NODE_OPTIONS accepts every one of those flags (Node refuses some there, e.g. --single-threaded-gc)', () => {
    const run = spawnSync(process.execPath, ['-e', '0'], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: APP_NODE_FLAGS.join(' ') },
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('runs the edge by default, from a compiled entry point whose source exists', () => {
    const cmd = runtime.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '';
    expect(JSON.parse(cmd)).toEqual(['node', 'dist/apps/edge/src/main.js']);
    expect(sourceExists('dist/apps/edge/src/main.js')).toBe(true);
  });

  it('ships what the apps read at runtime: compiled code, config, the console web files, a writable spool', () => {
    const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/--from=build \/app\/dist \.\/dist$/),
        'config ./config',
        'apps/console/web ./apps/console/web',
      ]),
    );
    const runtimeRuns = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runtimeRuns).toContainEqual(
      expect.stringMatching(/mkdir -p \/app\/var\/spool && chown node:node \/app\/var\/spool/),
    );
    expect(sourceExists('dist/apps/console/src/web/web-files.js')).toBe(true);
  });

  it('keeps secrets and local build output out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', '.env', '.env.*']));
  });
});
