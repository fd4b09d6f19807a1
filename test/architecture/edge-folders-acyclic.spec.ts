import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/**
 * The edge's top-level folders (`pipeline/`, `upstream/`, `logs/`...) import each other in one
 * direction only: a request's path reads top to bottom (docs/architecture.md, "The request
 * path") when no folder reaches back into one that uses it. This builds the folder graph from the
 * sources and fails naming the first cycle it finds. The files at the root of `src/` (the module,
 * the app, `main.ts`, the DI tokens) are the composition root every folder is wired through, so
 * they are not a folder of the graph. Tests are scanned too: a spec reaching back into a folder
 * that uses its own is the same tangle.
 */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const EDGE = join(repoRoot, 'apps/edge/src');

export type FolderGraph = ReadonlyMap<string, ReadonlySet<string>>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level folder of a path under `src/`, or null for a root file or a path outside. */
function folderOf(path: string): string | null {
  const rel = relative(EDGE, path);
  if (rel.startsWith('..')) return null;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0]! : null;
}

/** Relative imports of a source, as the compiler reads them (static, type-only, `export from`, `import()`). */
const relativeImports = (text: string): string[] =>
  ts
    .preProcessFile(text, true, true)
    .importedFiles.flatMap(({ fileName }) => (fileName.startsWith('.') ? [fileName] : []));

/** Folder -> the other folders its files import. */
export function edgeFolderGraph(files: readonly string[] = tsFiles(EDGE)): FolderGraph {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = folderOf(file);
    if (from === null) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const to = folderOf(resolve(dirname(file), spec));
      if (to !== null && to !== from) edges.add(to);
    }
  }
  return graph;
}

/**
 * A cycle of `graph` as the folders along it, the first repeated at the end
 * (`['logs', 'streams', 'logs']`), or null when it has none. Depth-first, in name order, so the
 * same tree names the same cycle.
 */
export function findCycle(graph: FolderGraph): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | null => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return null;
    path.push(node);
    onPath.add(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle !== null) return cycle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle !== null) return cycle;
  }
  return null;
}

const graphOf = (edges: Record<string, string[]>): FolderGraph =>
  new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

describe("the edge's folders import each other without a cycle", () => {
  const graph = edgeFolderGraph();

  it('reads every folder and the imports between them', () => {
    expect([...graph.keys()]).toEqual(
      expect.arrayContaining([
        'auth',
        'logs',
        'pipeline',
        'quota',
        'routing',
        'streams',
        'telemetry',
        'upstream',
      ]),
    );
    expect([...graph.get('pipeline')!]).toEqual(expect.arrayContaining(['upstream', 'logs', 'quota']));
    expect([...graph.get('logs')!]).toContain('streams');
  });

  it('has no cycle (the cycle found is named: a -> b -> a)', () => {
    expect(findCycle(graph)?.join(' -> ') ?? null).toBeNull();
  });
});

describe('findCycle', () => {
  it('names a cycle, through however many folders', () => {
    expect(findCycle(graphOf({ a: ['b'], b: ['a'] }))).toEqual(['a', 'b', 'a']);
    expect(findCycle(graphOf({ x: ['a'], a: ['b'], b: ['c'], c: ['a'] }))).toEqual(['a', 'b', 'c', 'a']);
  });

  it('finds none in a graph whose paths meet without looping back', () => {
    expect(findCycle(graphOf({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toBeNull();
    expect(findCycle(graphOf({}))).toBeNull();
  });

  it('reads a cycle the edge once had from the sources themselves', () => {
    // streams/stream-marker.ts imported logs/request-record.ts while logs/ imported streams/.
    const files = [join(EDGE, 'logs/log-shipper.service.ts'), join(EDGE, 'pipeline/stream-marker.ts')];
    const graph = edgeFolderGraph(files);
    const moved = new Map([...graph].map(([from, to]) => [from === 'pipeline' ? 'streams' : from, to]));
    expect(findCycle(moved)).toEqual(['logs', 'streams', 'logs']);
  });
});
