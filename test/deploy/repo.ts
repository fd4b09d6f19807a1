import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Absolute path of the repository root (this file lives in test/deploy/). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function repoPath(relative: string): string {
  return join(repoRoot, relative);
}

export function readRepoFile(relative: string): string {
  return readFileSync(repoPath(relative), 'utf8');
}

/** YAML as compose reads it: merge keys (`<<: *anchor`) resolved. */
export function readYaml(relative: string): unknown {
  return parse(readRepoFile(relative), { merge: true });
}

/** `dist/apps/edge/src/main.js` -> `apps/edge/src/main.ts`; undefined when not a compiled path. */
export function sourceOfDistPath(distPath: string): string | undefined {
  const match = /^dist\/(.+)\.js$/.exec(distPath);
  return match ? `${match[1]}.ts` : undefined;
}

export function sourceExists(distPath: string): boolean {
  const source = sourceOfDistPath(distPath);
  return source !== undefined && existsSync(repoPath(source));
}
