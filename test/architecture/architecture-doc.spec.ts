import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { repoPath } from '../deploy/repo.js';

/**
 * docs/architecture.md names every lib and every console folder in a table; the tree and the
 * tables must agree, so the document cannot go stale on them again (issue 32).
 */
const doc = readFileSync(repoPath('docs/architecture.md'), 'utf8');

/** The first-column names of the table under `heading`. */
function tableNames(heading: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start + heading.length + 2).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  const table = lines.slice(first, end).join('\n');
  return [...table.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]!);
}

const dirsOf = (path: string): string[] =>
  readdirSync(repoPath(path), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

describe('docs/architecture.md', () => {
  it('lists every lib, and only those', () => {
    expect(tableNames('### Libs').sort()).toEqual(dirsOf('libs'));
  });

  it('lists every console folder, and only those', () => {
    expect(tableNames('### Console folders').sort()).toEqual(dirsOf('apps/console/src'));
  });

  it('names no decorator or stream helper the code no longer has', () => {
    expect(doc).not.toMatch(/@AdminOnly|Readable\.from/);
  });
});
