import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { compatibilityMarkdown, compatibilityRows } from './compatibility.js';

const README = new URL('../../../../README.md', import.meta.url);

/** The first Markdown table under `## Compatibility`, as trimmed cells (separator row dropped). */
function readmeTable(): string[][] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf('\n## Compatibility\n');
  if (start < 0) throw new Error('README.md has no "## Compatibility" section');
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    table.push(cells);
  }
  return table;
}

describe('README compatibility table', () => {
  it('says exactly what the edge routes (regenerate with compatibilityMarkdown())', () => {
    // On a mismatch, paste compatibilityMarkdown() into the README (prettier aligns it).
    expect(readmeTable()).toEqual(compatibilityRows());
  });

  it('renders as a Markdown table', () => {
    expect(compatibilityMarkdown().split('\n')[1]).toMatch(/^\| --- \|/);
  });
});
