import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { PROVIDER_TYPES } from '#libs/providers';

/**
 * Provider types live in their folders of libs/providers, described once (`descriptor.ts`) and
 * listed once (`registry.ts`). So the vendor-neutral code around them names no vendor or cloud in
 * its source (comments may: they say why), and no code outside the registry lists provider types.
 */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const NAMES =
  /\b(openai|anthropic|claude|gemini|google|perplexity|deepseek|groq|vertex|bedrock|azure|aws|amazon|gcp|entra|microsoft)/i;

/** Where no vendor name may stand in code. */
const NEUTRAL = ['libs/config/src', 'libs/credentials/src', 'apps/console/src', 'apps/console/web'];

const isTest = (file: string): boolean => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(entry.name) && !isTest(path) ? [path] : [];
  });
}

/** The source without its comments, as the compiler parses it (strings and regexes kept). */
function withoutComments(text: string, file = 'file.ts'): string {
  const kind = file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const ranges: ts.CommentRange[] = [];
  const visit = (node: ts.Node): void => {
    ranges.push(...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []));
    ranges.push(...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []));
    node.forEachChild(visit);
  };
  visit(source);
  const chars = text.split(''); // UTF-16 units, as the ranges count
  for (const r of ranges) for (let i = r.pos; i < r.end; i++) if (chars[i] !== '\n') chars[i] = ' ';
  return chars.join('');
}

/** `file:line: text` for each line of code (not comment) naming a vendor or cloud. */
export function vendorNamesIn(text: string, file: string): string[] {
  return withoutComments(text, file)
    .split('\n')
    .flatMap((line, i) => (NAMES.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('vendor-neutral code names no vendor', () => {
  it.each(NEUTRAL)('%s', (dir) => {
    const files = sources(join(repoRoot, dir));
    expect(files.length).toBeGreaterThan(3);
    const found = files.flatMap((f) => vendorNamesIn(readFileSync(f, 'utf8'), relative(repoRoot, f)));
    expect(found).toEqual([]);
  });

  it('finds a name in code and strings, not in comments', () => {
    expect(vendorNamesIn("const t = 'bedrock';", 'a.ts')).toHaveLength(1);
    expect(vendorNamesIn('if (p.type === "azure-openai") x();', 'b.ts')).toHaveLength(1);
    expect(vendorNamesIn('// Bedrock signs with SigV4\n/* Vertex AI */ const x = 1;', 'c.ts')).toEqual([]);
  });
});

describe('provider types are listed in the registry only', () => {
  const registry = readFileSync(join(repoRoot, 'libs/providers/registry.ts'), 'utf8');
  const list = registry.slice(registry.indexOf('export const PROVIDER_DESCRIPTORS'));
  const types = [...list.slice(0, list.indexOf('] as const')).matchAll(/^\s+(\w+)Descriptor,$/gm)].map(
    (m) => m[1]!,
  );

  it('the registry lists each descriptor once', () => {
    expect(types.length).toBeGreaterThanOrEqual(8);
    expect(new Set(types).size).toBe(types.length);
  });

  it('no other source holds a list of three or more provider type names', () => {
    const list = new RegExp(`(['"\`])(${PROVIDER_TYPES.join('|')})\\1`, 'g');
    const dirs = ['apps', 'libs'].map((d) => join(repoRoot, d));
    const offenders = dirs
      .flatMap(sources)
      .filter((f) => !f.includes('/libs/testing/') && !f.endsWith('libs/providers/registry.ts'))
      .flatMap((f) => {
        const code = withoutComments(readFileSync(f, 'utf8'), f);
        const named = new Set([...code.matchAll(list)].map((m) => m[2]));
        return named.size >= 3 ? [`${relative(repoRoot, f)}: ${[...named].join(', ')}`] : [];
      });
    expect(offenders).toEqual([]);
  });
});
